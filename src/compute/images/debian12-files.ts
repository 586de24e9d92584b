import type { TreeFile } from './build-steps.ts';
import {
  BOOTED_MARKER,
  FIRST_BOOT_DONE,
  FIRST_BOOT_ENV,
  FIRST_BOOT_LOG,
  FIRST_BOOT_SCRIPT,
  NETWORK_INTERFACES_DIR,
} from './guest.ts';

/** The Debian image's own files, laid over the installed system (paths from its root). */

/** Renames the script before it runs, so a script that reboots the node is not run again. */
const FIRST_BOOT_RUNNER = `#!/bin/sh
mv ${FIRST_BOOT_SCRIPT} ${FIRST_BOOT_DONE}
chmod 0700 ${FIRST_BOOT_DONE}
exec ${FIRST_BOOT_DONE} >>${FIRST_BOOT_LOG} 2>&1 </dev/null
`;

const unit = (sections: Record<string, readonly string[]>) =>
  Object.entries(sections)
    .map(([name, lines]) => `[${name}]\n${lines.join('\n')}\n`)
    .join('\n');

/** Units enabled in the image (systemctl enable), by file name. */
export const UNITS = ['cumulo-ssh-host-keys.service', 'cumulo-booted.service', 'cumulo-firstboot.service'] as const;

export const ROOT_FILES: readonly TreeFile[] = [
  {
    path: '/etc/fstab',
    // Whichever device the root is (root= on the kernel command line): systemd remounts it read-write by its mount point.
    content: '/dev/root / ext4 defaults,errors=remount-ro 0 1\n',
    mode: 0o644,
  },
  { path: '/etc/hostname', content: 'debian\n', mode: 0o644 },
  { path: '/etc/hosts', content: '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n', mode: 0o644 },
  // The deploy writes the node's resolvers.
  { path: '/etc/resolv.conf', content: '', mode: 0o644 },
  {
    path: '/etc/network/interfaces',
    content: [
      `# The deploy writes each interface's stanza under ${NETWORK_INTERFACES_DIR}.`,
      `source ${NETWORK_INTERFACES_DIR}/*`,
      '',
      'auto lo',
      'iface lo inet loopback',
      '',
    ].join('\n'),
    mode: 0o644,
  },
  {
    // Interfaces keep the kernel's names (eth0, eth1, ... in device order): this replaces systemd's
    // 99-default.link, which would rename them by PCI slot; the initramfs takes it too.
    path: '/etc/systemd/network/99-default.link',
    content: unit({ Match: ['OriginalName=*'], Link: ['MACAddressPolicy=persistent'] }),
    mode: 0o644,
  },
  { path: '/etc/ssh/sshd_config.d/cumulo.conf', content: 'PermitRootLogin yes\nPasswordAuthentication yes\n', mode: 0o644 },
  {
    path: '/etc/apt/sources.list',
    content: [
      'deb http://deb.debian.org/debian bookworm main',
      'deb http://deb.debian.org/debian bookworm-updates main',
      'deb http://deb.debian.org/debian-security bookworm-security main',
      '',
    ].join('\n'),
    mode: 0o644,
  },
  {
    path: '/etc/systemd/system/cumulo-ssh-host-keys.service',
    content: unit({
      Unit: [
        'Description=SSH host keys of this node, made at its first boot',
        'Before=ssh.service',
        'ConditionPathExists=!/etc/ssh/ssh_host_ed25519_key',
      ],
      Service: ['Type=oneshot', 'ExecStart=/usr/bin/ssh-keygen -A'],
      Install: ['RequiredBy=ssh.service'],
    }),
    mode: 0o644,
  },
  {
    path: '/etc/systemd/system/cumulo-booted.service',
    content: unit({
      Unit: ['Description=Tell the host on the serial console that the node is up', 'After=ssh.service'],
      Service: ['Type=oneshot', `ExecStart=/bin/sh -c 'echo "${BOOTED_MARKER}" >/dev/ttyS0'`],
      Install: ['WantedBy=multi-user.target'],
    }),
    mode: 0o644,
  },
  { path: '/usr/lib/cumulo/firstboot', content: FIRST_BOOT_RUNNER, mode: 0o755 },
  {
    path: '/etc/systemd/system/cumulo-firstboot.service',
    content: unit({
      Unit: [
        'Description=The script given at deploy (a StackScript), run once',
        `ConditionPathExists=${FIRST_BOOT_SCRIPT}`,
        'Wants=network-online.target',
        'After=network-online.target',
      ],
      Service: [
        'Type=oneshot',
        `EnvironmentFile=-${FIRST_BOOT_ENV}`,
        'ExecStart=/usr/lib/cumulo/firstboot',
        'TimeoutStartSec=infinity',
      ],
      Install: ['WantedBy=multi-user.target'],
    }),
    mode: 0o644,
  },
];

/**
 * Run in the installed system (mmdebstrap's customize hook, which mounts what a chroot needs): the
 * units enabled (e2scrub's disabled: it looks for LVM snapshots, and a node has none), no host key
 * or machine id shared by every node, the kernel held to the one the node boots with (its modules
 * must match), an initrd that has the link file, and no caches or docs.
 */
export const CUSTOMIZE = `set -eu
systemctl enable ${UNITS.join(' ')}
systemctl disable e2scrub_reap.service e2scrub_all.timer
rm -f /etc/ssh/ssh_host_*
: >/etc/machine-id
rm -f /var/lib/dbus/machine-id
apt-mark hold $(dpkg-query -W -f '\${Status} \${Package}\\n' 'linux-image-*' | awk '$3 == "installed" { print $4 }') >/dev/null
update-initramfs -u -k all
passwd -l root >/dev/null
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt/* /var/log/dpkg.log /var/log/alternatives.log
find /usr/share/doc -mindepth 1 ! -name copyright ! -type d -delete
find /usr/share/doc -mindepth 1 -type d -empty -delete
rm -rf /usr/share/man/* /usr/share/info/* /usr/share/lintian /usr/share/linda
find /usr/share/locale -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
`;
