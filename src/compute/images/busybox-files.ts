import type { TreeFile } from './build-steps.ts';
import {
  BOOTED_MARKER,
  FIRST_BOOT_DONE,
  FIRST_BOOT_ENV,
  FIRST_BOOT_LOG,
  FIRST_BOOT_SCRIPT,
  NETWORK_INTERFACES_DIR,
} from './guest.ts';

/**
 * The files of the busybox image: a busybox initramfs that loads the virtio modules and switches to the
 * ext4 root, and a root whose busybox init brings up the network from the static ifupdown stanzas
 * under /etc/network/interfaces.d (else 10.0.2.15/24 via 10.0.2.2), starts dropbear, prints BOOTED_MARKER
 * on the serial console once SSH listens and runs the first-boot script, if any, once in the background.
 */

/** Loaded in this order: each after the modules it depends on. */
export const INITRAMFS_MODULES = [
  'virtio_ring',
  'virtio',
  'virtio_pci_legacy_dev',
  'virtio_pci_modern_dev',
  'virtio_pci',
  'virtio-rng',
  'virtio_blk',
  'failover',
  'net_failover',
  'virtio_net',
  'button',
  'evdev',
] as const;

export const INITRAMFS_INIT = `#!/bin/busybox sh
B=/bin/busybox
$B mount -t devtmpfs devtmpfs /dev
$B mount -t proc proc /proc
for m in ${INITRAMFS_MODULES.join(' ')}; do $B insmod /modules/$m.ko; done
root=/dev/vda
for arg in $($B cat /proc/cmdline); do
  case $arg in
    root=*) root=\${arg#root=} ;;
  esac
done
i=0
while [ ! -b "$root" ] && [ $i -lt 100 ]; do $B sleep 0.1; i=$((i + 1)); done
$B mount -t ext4 -o rw "$root" /newroot || { echo "cumulo: cannot mount $root"; $B poweroff -f; }
$B umount /proc
$B mount --move /dev /newroot/dev
exec $B switch_root /newroot /sbin/init
`;

const RC_START = `#!/bin/sh
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -o remount,rw /
mkdir -p /var/log
hostname -F /etc/hostname
ip link set lo up
if ls ${NETWORK_INTERFACES_DIR}/* >/dev/null 2>&1; then
  awk -f /usr/lib/cumulo/ifupdown.awk ${NETWORK_INTERFACES_DIR}/* | sh
else
  ip link set eth0 up
  ip addr add 10.0.2.15/24 dev eth0
  ip route add default via 10.0.2.2
fi
acpid
key=/etc/dropbear/dropbear_ed25519_host_key
mkdir -p /etc/dropbear
[ -f $key ] || dropbearkey -t ed25519 -f $key >/dev/null
dropbear -r $key -P /run/dropbear.pid
if [ -f ${FIRST_BOOT_SCRIPT} ]; then
  mv ${FIRST_BOOT_SCRIPT} ${FIRST_BOOT_DONE}
  (
    set -a
    [ -f ${FIRST_BOOT_ENV} ] && . ${FIRST_BOOT_ENV}
    set +a
    ${FIRST_BOOT_DONE} >>${FIRST_BOOT_LOG} 2>&1
  ) </dev/null &
fi
echo "${BOOTED_MARKER}"
`;

/**
 * The static stanzas the Debian image's ifupdown reads (guest.ts), as ip commands: each interface
 * up, its addresses (with their prefix) and its default routes.
 */
const IFUPDOWN_AWK = `$1 == "iface" && $2 != "lo" { dev = $2; v6 = ($3 == "inet6") ? "-6 " : ""; print "ip link set " dev " up"; next }
$1 == "iface" { dev = ""; next }
dev != "" && $1 == "address" { print "ip " v6 "addr add " $2 " dev " dev }
dev != "" && $1 == "gateway" { print "ip " v6 "route add default via " $2 " dev " dev }
`;

const RC_STOP = `#!/bin/sh
[ -f /run/dropbear.pid ] && kill "$(cat /run/dropbear.pid)"
sync
umount -a -r
mount -o remount,ro /
`;

/** The root filesystem's own files, laid over the extracted packages; modes as octal permissions. */
export const ROOT_FILES: readonly TreeFile[] = [
  {
    path: 'etc/inittab',
    content: [
      '::sysinit:/etc/init.d/rcS',
      'ttyS0::respawn:/sbin/getty -L 115200 ttyS0 vt100',
      '::ctrlaltdel:/sbin/reboot',
      '::shutdown:/etc/init.d/rcK',
      '',
    ].join('\n'),
    mode: 0o644,
  },
  { path: 'etc/init.d/rcS', content: RC_START, mode: 0o755 },
  { path: 'etc/init.d/rcK', content: RC_STOP, mode: 0o755 },
  { path: 'usr/lib/cumulo/ifupdown.awk', content: IFUPDOWN_AWK, mode: 0o644 },
  // busybox acpid runs this for the power button (QMP system_powerdown).
  { path: 'etc/acpi/PWRF/00000080', content: '#!/bin/sh\nexec poweroff\n', mode: 0o755 },
  { path: 'etc/passwd', content: 'root:x:0:0:root:/root:/bin/sh\n', mode: 0o644 },
  { path: 'etc/group', content: 'root:x:0:\n', mode: 0o644 },
  { path: 'etc/shadow', content: 'root:*:20000:0:99999:7:::\n', mode: 0o600 },
  { path: 'etc/shells', content: '/bin/sh\n', mode: 0o644 },
  { path: 'etc/hostname', content: 'cumulo-test\n', mode: 0o644 },
];
