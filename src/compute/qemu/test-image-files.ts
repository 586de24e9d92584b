import {
  BOOTED_MARKER,
  FIRSTBOOT_DONE_FILE,
  FIRSTBOOT_ENV_FILE,
  FIRSTBOOT_FILE,
  FIRSTBOOT_LOG,
  NETWORK_FILE,
} from './guest-contract.ts';

/**
 * The files of the test image: a busybox initramfs that loads the virtio modules and switches to the
 * ext4 root, and a root whose busybox init follows the guest contract (guest-contract.ts): the
 * interfaces from NETWORK_FILE, the first-boot script, BOOTED_MARKER on the serial console once SSH listens.
 */

/** Loaded in this order: each after the modules it depends on. */
export const INITRAMFS_MODULES = [
  'virtio_ring',
  'virtio',
  'virtio_pci_legacy_dev',
  'virtio_pci_modern_dev',
  'virtio_pci',
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
INTERFACES=
[ -f ${NETWORK_FILE} ] && . ${NETWORK_FILE}
for i in $INTERFACES; do
  eval "ipv4=\\$IPV4_$i gateway4=\\$GATEWAY4_$i ipv6=\\$IPV6_$i gateway6=\\$GATEWAY6_$i"
  ip link set "$i" up
  for address in $ipv4; do ip addr add "$address" dev "$i"; done
  [ -n "$gateway4" ] && ip route add default via "$gateway4" dev "$i"
  [ -n "$ipv6" ] && ip -6 addr add "$ipv6" dev "$i"
  [ -n "$gateway6" ] && ip -6 route add default via "$gateway6" dev "$i"
done
acpid
key=/etc/dropbear/dropbear_ed25519_host_key
mkdir -p /etc/dropbear
[ -f $key ] || dropbearkey -t ed25519 -f $key >/dev/null
dropbear -r $key -P /run/dropbear.pid
if [ -f ${FIRSTBOOT_FILE} ]; then
  (
    set -a
    [ -f ${FIRSTBOOT_ENV_FILE} ] && . ${FIRSTBOOT_ENV_FILE}
    set +a
    ${FIRSTBOOT_FILE} >${FIRSTBOOT_LOG} 2>&1
    mv ${FIRSTBOOT_FILE} ${FIRSTBOOT_DONE_FILE}
  ) </dev/null &
fi
echo "${BOOTED_MARKER}"
`;

const RC_STOP = `#!/bin/sh
[ -f /run/dropbear.pid ] && kill "$(cat /run/dropbear.pid)"
sync
umount -a -r
mount -o remount,ro /
`;

/** The root filesystem's own files, laid over the extracted packages; modes as octal permissions. */
export const ROOT_FILES: readonly { path: string; content: string; mode: number }[] = [
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
  // busybox acpid runs this for the power button (QMP system_powerdown).
  { path: 'etc/acpi/PWRF/00000080', content: '#!/bin/sh\nexec poweroff\n', mode: 0o755 },
  { path: 'etc/passwd', content: 'root:x:0:0:root:/root:/bin/sh\n', mode: 0o644 },
  { path: 'etc/group', content: 'root:x:0:\n', mode: 0o644 },
  { path: 'etc/shadow', content: 'root:*:20000:0:99999:7:::\n', mode: 0o600 },
  { path: 'etc/shells', content: '/bin/sh\n', mode: 0o644 },
  { path: 'etc/hostname', content: 'cumulo-test\n', mode: 0o644 },
  {
    path: NETWORK_FILE.slice(1),
    content: "INTERFACES='eth0'\nIPV4_eth0='10.0.2.15/24'\nGATEWAY4_eth0='10.0.2.2'\n",
    mode: 0o644,
  },
];
