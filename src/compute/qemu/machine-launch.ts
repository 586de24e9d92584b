import fs from 'node:fs';
import { writeFileWhole } from '../../write-whole.ts';
import type { ForwardedPort, MachineSpec } from '../driver.ts';
import { checkSocketPath, diskFiles, type MachineFiles, machineFiles, runtimeFilesOf } from './data-layout.ts';
import { keptFirewall } from './kept-firewall.ts';
import type { Accelerator } from './kvm.ts';
import { LiveMachine } from './live-machine.ts';
import type { NetworkBackend } from './network-backend.ts';
import { guestDevice, type KernelBoot, qemuCommand } from './qemu-command.ts';
import { killQemu, readPid } from './qemu-process.ts';
import { run } from './run.ts';

/** The disk files of a machine's devices, in order, and the root disk's kernel when it boots from it (and has one). */
function bootFiles(dir: string, spec: MachineSpec): { disks: string[]; kernelBoot: KernelBoot | null } {
  const disks = spec.devices.filter((key) => key !== null).map((key) => diskFiles(dir, key).disk);
  for (const disk of disks) if (!fs.existsSync(disk)) throw new Error(`machine ${spec.key}: no disk at ${disk}`);
  if (spec.boot === 'disk') return { disks, kernelBoot: null };
  const rootKey = spec.devices[spec.rootDevice];
  if (rootKey === null || rootKey === undefined) throw new Error(`machine ${spec.key} has no disk at its root device`);
  const root = diskFiles(dir, rootKey);
  // An uploaded whole-disk image carries no kernel of its own here: it boots with its own bootloader.
  if (!fs.existsSync(root.kernel)) return { disks, kernelBoot: null };
  const initrd = fs.existsSync(root.initrd) ? root.initrd : null;
  return { disks, kernelBoot: { kernel: root.kernel, initrd, root: guestDevice(spec.devices, spec.rootDevice) } };
}

/** The ports the machine had when it last ran, so that a reboot keeps them. */
function earlierPorts(files: MachineFiles): ForwardedPort[] {
  try {
    return JSON.parse(fs.readFileSync(files.ports, 'utf8')) as ForwardedPort[];
  } catch {
    return [];
  }
}

/** Removes what a machine's process left (sockets, pid file, its network); the console log and spec stay. */
export async function removeRuntime(key: string, files: MachineFiles, network: NetworkBackend): Promise<void> {
  for (const file of runtimeFilesOf(files)) fs.rmSync(file, { force: true });
  await network.detach(key);
}

/**
 * Starts the machine's QEMU, paused, and takes hold of it: its folder made afresh (a new console log),
 * its spec and network written there, its kept firewall loaded before QEMU starts (so the guest never
 * runs unfiltered). When this fails, no QEMU is left and neither is its network.
 */
export async function launchQemu(
  dir: string,
  spec: MachineSpec,
  accel: Accelerator,
  network: NetworkBackend,
): Promise<LiveMachine> {
  const files = machineFiles(dir, spec.key);
  checkSocketPath(files.qmp);
  checkSocketPath(files.serial);
  const { disks, kernelBoot } = bootFiles(dir, spec);
  fs.mkdirSync(files.folder, { recursive: true, mode: 0o700 });
  for (const file of [...runtimeFilesOf(files), files.consoleLog, files.previousConsoleLog]) fs.rmSync(file, { force: true });
  writeFileWhole(files.spec, JSON.stringify(spec), 0o600);
  const attached = await network.attach(spec, earlierPorts(files));
  try {
    writeFileWhole(files.network, JSON.stringify(attached), 0o600);
    writeFileWhole(files.ports, JSON.stringify(attached.ports), 0o600);
    await network.applyFirewall(spec.key, keptFirewall(files));
    const [program = '', ...args] = qemuCommand({ spec, accel, files, disks, kernelBoot, network: attached });
    await run(program, args, { timeoutMs: 60_000 });
    const pid = readPid(files.pid);
    if (pid === null) throw new Error(`QEMU wrote no pid file for machine ${spec.key}`);
    return await LiveMachine.connect({ key: spec.key, pid, files, memoryMb: spec.memoryMb }, true).catch(
      async (error: unknown) => {
        await killQemu(pid, files.pid);
        throw error;
      },
    );
  } catch (error) {
    await removeRuntime(spec.key, files, network);
    throw error;
  }
}
