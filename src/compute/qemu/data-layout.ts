import path from 'node:path';

/** Keys name directories: letters, digits and dashes only, so that none reaches outside its folder. */
function checkedKey(key: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/.test(key)) throw new Error(`not a compute key: ${JSON.stringify(key)}`);
  return key;
}

/** Where every disk's folder is: the storage the disks take. */
export function disksDir(dir: string): string {
  return path.join(dir, 'disks');
}

/** A disk's folder: the disk, and the kernel and initrd of the image deployed onto it, when it carries them. */
export function diskFiles(dir: string, key: string) {
  const folder = path.join(disksDir(dir), checkedKey(key));
  return {
    folder,
    disk: path.join(folder, 'disk.img'),
    kernel: path.join(folder, 'vmlinuz'),
    initrd: path.join(folder, 'initrd.img'),
  };
}

export type DiskFiles = ReturnType<typeof diskFiles>;

export function machinesDir(dir: string): string {
  return path.join(dir, 'machines');
}

/** A machine's folder: what QEMU and the driver keep of it while it runs (the console logs stay after). */
export function machineFiles(dir: string, key: string) {
  const folder = path.join(machinesDir(dir), checkedKey(key));
  return {
    folder,
    pid: path.join(folder, 'qemu.pid'),
    qmp: path.join(folder, 'qmp.sock'),
    serial: path.join(folder, 'serial.sock'),
    consoleLog: path.join(folder, 'console.log'),
    /** What the console log held before it was last rotated (console-log.ts). */
    previousConsoleLog: path.join(folder, 'console.log.1'),
    /** Written once the guest is seen up in this run, so a machine adopted later knows it whatever its logs still hold. */
    guestUp: path.join(folder, 'guest-up'),
    spec: path.join(folder, 'spec.json'),
    network: path.join(folder, 'network.json'),
    /** The host ports the machine was last given (user networking), given again at its next start when free. */
    ports: path.join(folder, 'ports.json'),
    /** The node's rendered firewall, kept whether the machine runs or not, and loaded whenever it starts. */
    firewall: path.join(folder, 'firewall.nft'),
  };
}

export type MachineFiles = ReturnType<typeof machineFiles>;

/** What a machine's folder holds only while its process runs; removed when it ends. */
export function runtimeFilesOf(files: MachineFiles): string[] {
  return [files.pid, files.qmp, files.serial, files.network, files.guestUp];
}

/** A Unix socket's path must fit in sun_path (108 bytes with its terminating NUL). */
export function checkSocketPath(socket: string): void {
  if (Buffer.byteLength(socket) > 107)
    throw new Error(`the socket path ${socket} is longer than a Unix socket allows: choose a shorter CUMULO_DATA_DIR`);
}
