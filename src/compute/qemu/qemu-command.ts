import type { MachineSpec } from '../driver.ts';
import type { MachineFiles } from './data-layout.ts';
import type { Accelerator } from './kvm.ts';
import type { MachineNetwork } from './network-backend.ts';

/** A direct kernel boot: the root disk's own kernel and initrd, and the guest device of its root. */
export type KernelBoot = { kernel: string; initrd: string | null; root: string };

export type QemuLaunch = {
  spec: MachineSpec;
  accel: Accelerator;
  files: MachineFiles;
  /** The disk files of the spec's devices that are not empty, in device order. */
  disks: readonly string[];
  /** null: the first disk boots with its own bootloader. */
  kernelBoot: KernelBoot | null;
  network: MachineNetwork;
};

/** A value inside a QEMU option list, where a comma separates options unless doubled. */
function optionValue(value: string): string {
  return value.replaceAll(',', ',,');
}

/**
 * The guest device of `devices[index]`: the virtio disks are named in the order they are attached,
 * and an empty device attaches none, so `sdc` after an empty `sdb` is `/dev/vdb`.
 */
export function guestDevice(devices: readonly (string | null)[], index: number): string {
  const position = devices.slice(0, index).filter((d) => d !== null).length;
  if (devices[index] === null || devices[index] === undefined || position >= 26) throw new Error(`no disk at device ${index}`);
  return `/dev/vd${String.fromCharCode(97 + position)}`;
}

/**
 * The command that starts a machine daemonized and paused (`-S`): the driver connects to its QMP and
 * serial sockets, then lets it run, so that no console output is missed.
 */
export function qemuCommand(launch: QemuLaunch): string[] {
  const { spec, files } = launch;
  const args = ['qemu-system-x86_64', '-name', spec.key, '-accel', launch.accel];
  if (launch.accel === 'kvm') args.push('-cpu', 'host');
  args.push('-smp', String(spec.vcpus), '-m', String(spec.memoryMb));
  args.push('-nodefaults', '-no-user-config', '-display', 'none', '-S', '-daemonize', '-pidfile', files.pid);
  args.push('-qmp', `unix:${optionValue(files.qmp)},server=on,wait=off`);
  args.push(
    '-chardev',
    `socket,id=serial0,path=${optionValue(files.serial)},server=on,wait=off,logfile=${optionValue(files.consoleLog)},logappend=on`,
    '-serial',
    'chardev:serial0',
  );
  // The guest reports a kernel panic through it (QMP GUEST_PANICKED).
  args.push('-device', 'pvpanic');
  // Entropy from the host: without it an emulated guest waits seconds at boot for its first random
  // numbers (SSH host keys, systemd's seed).
  args.push('-device', 'virtio-rng-pci');
  launch.disks.forEach((disk, index) => {
    args.push('-drive', `file=${optionValue(disk)},if=none,id=disk${index},format=raw,discard=unmap`);
    const bootIndex = launch.kernelBoot === null && index === 0 ? ',bootindex=0' : '';
    args.push('-device', `virtio-blk-pci,drive=disk${index}${bootIndex}`);
  });
  if (launch.kernelBoot !== null) {
    const { kernel, initrd, root } = launch.kernelBoot;
    args.push('-kernel', kernel, '-append', `root=${root} rw console=ttyS0 net.ifnames=0`);
    if (initrd !== null) args.push('-initrd', initrd);
  }
  args.push(...launch.network.qemuArgs);
  return [...launch.network.launchPrefix, ...args];
}
