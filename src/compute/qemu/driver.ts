import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { startTicks } from '../../processes.ts';
import type {
  CapturedDisk,
  ComputeDriver,
  ComputeEvent,
  DeploySettings,
  DiskCopy,
  DiskSpec,
  ForwardedPort,
  ImageFiles,
  MachineConsole,
  MachineCounters,
  MachineSpec,
  MachineState,
  NetworkSettings,
  Progress,
} from '../driver.ts';
import { DEFAULT_CONSOLE_LOG_BYTES, rotateConsoleLog } from './console-log.ts';
import { diskFiles, type MachineFiles, machineFiles, machinesDir, runtimeFilesOf } from './data-layout.ts';
import { diskCapacityMb } from './disk-capacity.ts';
import { captureDiskFiles } from './disk-capture.ts';
import { copyDiskFiles } from './disk-copy.ts';
import { writeRootPassword } from './disk-password.ts';
import { diskMinimumMb, resizeDiskFile } from './disk-resize.ts';
import { restoreDisk, snapshotDisks } from './disk-snapshot.ts';
import { DiskStore, isExtFilesystem } from './disk-store.ts';
import { readExt4File } from './ext4-settings.ts';
import { keepFirewall, keptFirewall } from './kept-firewall.ts';
import { type AcceleratorChoice, chooseAccelerator } from './kvm.ts';
import { LiveMachine } from './live-machine.ts';
import { launchQemu, removeRuntime } from './machine-launch.ts';
import type { MachineNetwork, NetworkBackend } from './network-backend.ts';
import { writeNetworkFiles } from './network-helper.ts';
import { parseNodeRuleset } from './node-ruleset.ts';
import { cpuSeconds, killQemu, livePid } from './qemu-process.ts';

export interface QemuDriverOptions {
  /** The data dir's `compute` folder: `disks/<key>/` and `machines/<key>/`. */
  dir: string;
  network: NetworkBackend;
  /** Memory (MB) for all machines together (CUMULO_COMPUTE_MEMORY). */
  memoryMb: number;
  log: Logger;
  /** Skips the KVM probe (tests that start several drivers on one host). */
  accelerator?: AcceleratorChoice;
  /** The size past which a machine's console log is rotated (CUMULO_CONSOLE_LOG_MB). */
  consoleLogBytes?: number;
}

/** After `quit`, how long QEMU may take to end before it is killed. */
const QUIT_GRACE_MS = 10_000;
const TCG_GRACE_FACTOR = 4;
const CONSOLE_LINES_IN_ERRORS = 20;
/** How often the console logs of the machines held are looked at: a chatty guest writes some 40 KB/s. */
const LOG_CHECK_MS = 2_000;

/** Resolves true when `promise` settles within `ms`, false otherwise. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** Machines as daemonized QEMU processes and disks as raw files, all under one folder (docs/compute.md). */
export class QemuDriver implements ComputeDriver {
  readonly name = 'qemu';
  #dir: string;
  #network: NetworkBackend;
  #memoryMb: number;
  #log: Logger;
  #disks: DiskStore;
  #choosing: Promise<AcceleratorChoice> | null = null;
  #choice: AcceleratorChoice | null;
  #onEvent: ((event: ComputeEvent) => void) | null = null;
  /** The machines this process holds (QMP and serial connections). */
  #live = new Map<string, LiveMachine>();
  /** Starts between "not running" and held, with their memory (counted as taken). */
  #launching = new Map<string, { memoryMb: number; machine: Promise<LiveMachine> }>();
  /** What is done once a held machine has ended (its files, its network, its event), by key. */
  #ended = new Map<string, Promise<void>>();
  #consoleLogBytes: number;
  #logCheck: NodeJS.Timeout | null = null;
  #checkingLogs = false;

  constructor(options: QemuDriverOptions) {
    // Absolute: a running QEMU is recognised by the pid file path on its command line.
    this.#dir = path.resolve(options.dir);
    this.#network = options.network;
    this.#memoryMb = options.memoryMb;
    this.#log = options.log;
    this.#disks = new DiskStore(this.#dir, options.log);
    this.#choice = options.accelerator ?? null;
    this.#consoleLogBytes = options.consoleLogBytes ?? DEFAULT_CONSOLE_LOG_BYTES;
  }

  /** KVM or TCG, chosen once (a probe guest booted under KVM). */
  accelerator(): Promise<AcceleratorChoice> {
    if (this.#choice) return Promise.resolve(this.#choice);
    this.#choosing ??= chooseAccelerator().then((choice) => {
      this.#choice = choice;
      this.#log.info(choice, `compute: guests run under ${choice.accel.toUpperCase()}`);
      return choice;
    });
    return this.#choosing;
  }

  /** The accelerator once chosen (by `open` or a first start), for the start banner; null before. */
  get acceleratorChoice(): AcceleratorChoice | null {
    return this.#choice;
  }

  async open(onEvent: (event: ComputeEvent) => void): Promise<void> {
    this.#onEvent = onEvent;
    await this.accelerator();
    const dir = machinesDir(this.#dir);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const key of fs.readdirSync(dir)) {
      try {
        await this.#adoptOrClean(key);
      } catch (err) {
        this.#log.error({ err, machine: key }, 'compute: a machine left by an earlier process could not be adopted');
      }
    }
  }

  async close(): Promise<void> {
    if (this.#logCheck) clearInterval(this.#logCheck);
    this.#logCheck = null;
    this.#onEvent = null;
    for (const machine of this.#live.values()) machine.release();
    this.#live.clear();
  }

  /** Rotates the console log of each machine held that has passed its cap (console-log.ts). */
  async #rotateConsoleLogs(): Promise<void> {
    if (this.#checkingLogs) return;
    this.#checkingLogs = true;
    try {
      for (const machine of this.#live.values()) {
        await rotateConsoleLog(machine.files, this.#consoleLogBytes).catch((err: unknown) =>
          this.#log.warn({ err, machine: machine.key }, 'compute: a console log could not be rotated'),
        );
      }
    } finally {
      this.#checkingLogs = false;
    }
  }

  /** A machine found on disk: held again when its QEMU runs, else cleaned up and reported powered off. */
  async #adoptOrClean(key: string): Promise<LiveMachine | null> {
    if (this.#live.has(key) || this.#launching.has(key)) return null;
    const files = machineFiles(this.#dir, key);
    const pid = livePid(files.pid);
    if (pid !== null && fs.existsSync(files.qmp)) return this.#adopt(key, pid, files);
    if (pid !== null) await killQemu(pid, files.pid);
    const wasRunning = runtimeFilesOf(files).some((file) => fs.existsSync(file));
    if (!wasRunning) return null;
    await this.#cleanUp(key, files);
    this.#onEvent?.({ key, kind: 'powered_off' });
    return null;
  }

  async #adopt(key: string, pid: number, files: MachineFiles): Promise<LiveMachine> {
    const spec = readJson<MachineSpec>(files.spec);
    const machine = await LiveMachine.connect({ key, pid, files, memoryMb: spec?.memoryMb ?? 0 }, false);
    this.#hold(machine);
    // Started by a process that ended before letting it run.
    const status = (await machine.qmp?.execute('query-status').catch(() => null)) as { status?: string } | null;
    if (status?.status === 'prelaunch') await machine.qmp?.execute('cont');
    this.#log.info({ machine: key, pid }, 'compute: machine adopted');
    return machine;
  }

  #hold(machine: LiveMachine): void {
    this.#live.set(machine.key, machine);
    this.#logCheck ??= setInterval(() => void this.#rotateConsoleLogs(), LOG_CHECK_MS).unref();
    this.#ended.set(
      machine.key,
      machine.gone.then(() => this.#afterEnd(machine)),
    );
  }

  async #afterEnd(machine: LiveMachine): Promise<void> {
    if (this.#live.get(machine.key) === machine) this.#live.delete(machine.key);
    await this.#cleanUp(machine.key, machine.files);
    this.#log.info(
      { machine: machine.key, reason: machine.shutdownReason ?? 'none', asked: machine.endAsked },
      'compute: machine ended',
    );
    if (!machine.endAsked) this.#onEvent?.({ key: machine.key, kind: machine.endKind() });
  }

  /** Removes what a machine's process left (sockets, pid file, network); the console log and spec stay. */
  async #cleanUp(key: string, files: MachineFiles): Promise<void> {
    await removeRuntime(key, files, this.#network).catch((err: unknown) =>
      this.#log.error({ err, machine: key }, 'compute: what a machine left could not all be removed'),
    );
  }

  /** The machine of `key` this process holds or is starting, or one running that it takes hold of now. */
  async #machine(key: string): Promise<LiveMachine | null> {
    const held = this.#live.get(key);
    if (held) return held;
    const launching = this.#launching.get(key);
    if (launching) return launching.machine.catch(() => null);
    await this.#ended.get(key);
    const files = machineFiles(this.#dir, key);
    const pid = livePid(files.pid);
    return pid === null ? null : this.#adopt(key, pid, files);
  }

  diskCapacityMb(): Promise<number> {
    return diskCapacityMb(this.#dir);
  }

  prepareDisk(spec: DiskSpec): Promise<void> {
    return this.#disks.prepare(spec);
  }

  deployImage(disk: DiskSpec, image: ImageFiles, settings: DeploySettings, onProgress?: Progress): Promise<void> {
    return this.#disks.deploy(disk, image, settings, onProgress);
  }

  deleteDisk(key: string): Promise<void> {
    return this.#disks.delete(key);
  }

  resizeDisk(spec: DiskSpec): Promise<void> {
    return resizeDiskFile(this.#existingDisk(spec.key), spec);
  }

  async diskMinimumMb(spec: DiskSpec): Promise<number | null> {
    const { disk } = diskFiles(this.#dir, spec.key);
    return fs.existsSync(disk) ? diskMinimumMb(disk, spec) : null;
  }

  setRootPassword(key: string, hash: string): Promise<void> {
    return writeRootPassword(this.#existingDisk(key), hash);
  }

  async readDiskFile(key: string, file: string): Promise<string | null> {
    const { disk } = diskFiles(this.#dir, key);
    if (!fs.existsSync(disk) || !isExtFilesystem(disk)) return null;
    return (await readExt4File(disk, file)) ?? null;
  }

  #existingDisk(key: string): string {
    const { disk } = diskFiles(this.#dir, key);
    if (!fs.existsSync(disk)) throw new Error(`disk ${key} has no file (${disk})`);
    return disk;
  }

  async snapshotDisks(
    machineKey: string,
    diskKeys: readonly string[],
    destination: string,
    onProgress?: Progress,
  ): Promise<{ copies: DiskCopy[]; pausedMs: number }> {
    const machine = await this.#machine(machineKey);
    return snapshotDisks(this.#dir, machine?.qmp ?? null, diskKeys, destination, onProgress);
  }

  restoreDisk(
    disk: DiskSpec,
    copy: Omit<DiskCopy, 'key'>,
    network?: readonly NetworkSettings[],
    onProgress?: Progress,
  ): Promise<void> {
    return restoreDisk(this.#dir, disk, copy, network, onProgress);
  }

  copyDisk(from: string, to: DiskSpec, onProgress?: Progress): Promise<void> {
    return this.#pausedWhile(from, () => copyDiskFiles(this.#dir, from, to, onProgress));
  }

  captureDisk(key: string, to: CapturedDisk, onProgress?: Progress): Promise<{ bootFiles: boolean; sizeMb: number }> {
    return captureDiskFiles(this.#dir, key, to, (read) => this.#pausedWhile(key, read), onProgress);
  }

  writeNetwork(key: string, network: readonly NetworkSettings[]): Promise<void> {
    return writeNetworkFiles(this.#dir, key, network);
  }

  /** Runs `work` with the machines using the disk paused (QMP stop and cont), so what it reads is consistent. */
  async #pausedWhile<T>(diskKey: string, work: () => Promise<T>): Promise<T> {
    const using = [...this.#live.values()].filter((machine) =>
      readJson<MachineSpec>(machine.files.spec)?.devices.includes(diskKey),
    );
    const paused: LiveMachine[] = [];
    try {
      for (const machine of using) {
        await machine.qmp?.execute('stop');
        paused.push(machine);
      }
      return await work();
    } finally {
      for (const machine of paused) await machine.qmp?.execute('cont').catch(() => {});
    }
  }

  memoryFreeMb(): number {
    const dir = machinesDir(this.#dir);
    const taken = new Map<string, number>();
    for (const key of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      const files = machineFiles(this.#dir, key);
      if (livePid(files.pid) !== null) taken.set(key, readJson<MachineSpec>(files.spec)?.memoryMb ?? 0);
    }
    for (const [key, launching] of this.#launching) if (!taken.has(key)) taken.set(key, launching.memoryMb);
    return this.#memoryMb - [...taken.values()].reduce((sum, mb) => sum + mb, 0);
  }

  async start(spec: MachineSpec, options: { timeoutMs: number }): Promise<void> {
    let machine = (await this.#machine(spec.key)) ?? (await this.#launching.get(spec.key)?.machine);
    if (!machine) {
      // No await since the look-up above: a second start of the same machine waits for this launch.
      const launch = this.#launch(spec);
      this.#launching.set(spec.key, { memoryMb: spec.memoryMb, machine: launch });
      try {
        machine = await launch;
      } finally {
        this.#launching.delete(spec.key);
      }
    }
    const result = await machine.waitUp(options.timeoutMs);
    if (result === 'up') return;
    if (result === 'released') throw new Error(`the driver was closed while machine ${spec.key} was starting`);
    const tail = machine.consoleTail(CONSOLE_LINES_IN_ERRORS);
    if (result === 'timeout') {
      machine.endAsked = true;
      await this.#kill(machine);
    }
    await this.#ended.get(spec.key);
    const what =
      result === 'gone' ? 'ended before its guest was up' : `was not up within ${options.timeoutMs / 1000} s and was stopped`;
    throw new Error(`machine ${spec.key} ${what}; the last lines of its console:\n${tail}`);
  }

  async #launch(spec: MachineSpec): Promise<LiveMachine> {
    const { accel } = await this.accelerator();
    const machine = await launchQemu(this.#dir, spec, accel, this.#network);
    this.#hold(machine);
    await machine.qmp?.execute('cont').catch(async (error: unknown) => {
      machine.endAsked = true;
      await this.#kill(machine);
      throw error;
    });
    return machine;
  }

  async #kill(machine: LiveMachine): Promise<void> {
    await killQemu(machine.pid, machine.files.pid);
    await machine.gone;
  }

  async stop(key: string, options: { graceMs: number }): Promise<void> {
    const machine = await this.#machine(key);
    if (!machine) return;
    machine.endAsked = true;
    const { qmp } = machine;
    // A guest under TCG runs several times slower than under KVM, and so does its shutdown.
    const graceMs = (await this.accelerator()).accel === 'tcg' ? options.graceMs * TCG_GRACE_FACTOR : options.graceMs;
    if (qmp) {
      await qmp.execute('system_powerdown').catch(() => {});
      if (!(await within(machine.gone, graceMs))) {
        qmp.execute('quit').catch(() => {});
        if (!(await within(machine.gone, QUIT_GRACE_MS))) await this.#kill(machine);
      }
    } else if (!(await within(machine.gone, graceMs))) {
      await this.#kill(machine);
    }
    await this.#ended.get(key);
  }

  async destroy(key: string): Promise<void> {
    const machine = await this.#machine(key);
    if (machine) {
      machine.endAsked = true;
      await this.#kill(machine);
      await this.#ended.get(key);
    }
    const files = machineFiles(this.#dir, key);
    await this.#network.detach(key);
    fs.rmSync(files.folder, { recursive: true, force: true });
  }

  async state(key: string): Promise<MachineState> {
    return livePid(machineFiles(this.#dir, key).pid) === null ? 'stopped' : 'running';
  }

  console(key: string): MachineConsole | null {
    return this.#live.get(key)?.console ?? null;
  }

  ports(key: string): readonly ForwardedPort[] {
    const files = machineFiles(this.#dir, key);
    if (livePid(files.pid) === null) return [];
    return readJson<MachineNetwork>(files.network)?.ports ?? [];
  }

  async counters(key: string): Promise<MachineCounters | null> {
    const files = machineFiles(this.#dir, key);
    const pid = livePid(files.pid);
    const cpu = pid === null ? null : cpuSeconds(pid);
    const started = pid === null ? null : startTicks(pid);
    if (cpu === null || started === null) return null;
    type BlockStats = { stats?: { rd_bytes?: number; wr_bytes?: number } }[];
    const blocks = ((await this.#live
      .get(key)
      ?.qmp?.execute('query-blockstats')
      .catch(() => null)) ?? []) as BlockStats;
    const sum = (pick: (stats: NonNullable<BlockStats[number]['stats']>) => number | undefined) =>
      blocks.reduce((total, block) => total + (block.stats ? (pick(block.stats) ?? 0) : 0), 0);
    // Network counters need the host side of an interface (a tap); user networking has none.
    const traffic = await this.#network.traffic(key).catch(() => null);
    const none = { inBytes: 0, outBytes: 0, localInBytes: 0, localOutBytes: 0 };
    return {
      // A pid and its start time name one process, so one run; its network is attached anew with it.
      run: `${pid}@${started}`,
      cpuSeconds: cpu,
      diskReadBytes: sum((s) => s.rd_bytes),
      diskWriteBytes: sum((s) => s.wr_bytes),
      ipv4: traffic?.ipv4 ?? none,
      ipv6: traffic?.ipv6 ?? none,
    };
  }

  /**
   * Keeps the ruleset in the machine's folder (every start loads it, machine-launch.ts) and, when the
   * machine runs, loads it now. A ruleset the network refuses for a running machine is not kept: the
   * last one stays, loaded and kept. User networking keeps it and loads nothing (it filters nothing).
   */
  async applyFirewall(key: string, ruleset: string | null): Promise<void> {
    // Refused before it is kept: a start would fail on it later.
    if (ruleset !== null) parseNodeRuleset(ruleset);
    const files = machineFiles(this.#dir, key);
    // A launch under way may have read the kept ruleset already: it is loaded again once the launch is done.
    for (let launch = this.#launching.get(key); launch; launch = this.#launching.get(key)) await launch.machine.catch(() => null);
    // No await from here to the write: a launch that starts later reads this ruleset.
    const previous = keptFirewall(files);
    keepFirewall(files, ruleset);
    if (livePid(files.pid) === null) return;
    try {
      await this.#network.applyFirewall(key, ruleset);
    } catch (error) {
      // Stopped meanwhile, its network gone with it: the ruleset waits for the next start.
      if (livePid(files.pid) === null) return;
      keepFirewall(files, previous);
      throw error;
    }
  }
}
