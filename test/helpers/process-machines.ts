import { type ChildProcess, spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import type { ComputeDriver, ComputeEvent, MachineConsole, MachineCounters, MachineState } from '../../src/compute/driver.ts';

/** How much of its output a console keeps to replay. */
const SCREEN_BYTES = 64 * 1024;

/** The serial console of a local process: what it prints (stdout and stderr) is the screen, what is typed goes to its stdin. */
class ProcessConsole implements MachineConsole {
  readonly exited: Promise<number | null>;
  #child: ChildProcess;
  #screen = Buffer.alloc(0);
  #attached = new Set<Duplex>();
  #running = true;

  constructor(child: ChildProcess) {
    this.#child = child;
    const print = (chunk: Buffer) => {
      this.#screen = Buffer.concat([this.#screen, chunk]).subarray(-SCREEN_BYTES);
      for (const stream of this.#attached) stream.push(chunk);
    };
    child.stdout?.on('data', print);
    child.stderr?.on('data', print);
    // A process that ends while input is being written to it: the write fails, as typing into a stopped machine would.
    child.stdin?.on('error', () => {});
    this.exited = new Promise((resolve) => {
      child.once('close', (code) => {
        this.#running = false;
        for (const stream of this.#attached) stream.push(null);
        this.#attached.clear();
        resolve(code);
      });
    });
  }

  get running(): boolean {
    return this.#running;
  }

  screen(): Buffer {
    return Buffer.from(this.#screen);
  }

  attach(): Duplex {
    const stdin = this.#child.stdin;
    const attached = this.#attached;
    const stream: Duplex = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        if (!stdin || stdin.destroyed) return done();
        stdin.write(chunk, () => done());
      },
      destroy(err, done) {
        attached.delete(stream);
        done(err);
      },
    });
    if (this.#running) attached.add(stream);
    else stream.push(null);
    return stream;
  }

  stop(): void {
    this.#child.kill('SIGKILL');
  }
}

/**
 * A compute driver whose machines are local processes, for the console's transport: `run` starts one
 * under a machine key, and `console` gives its console while it runs. Disks, images, starting and
 * stopping through the driver are not what this double is for: those methods throw.
 */
export class ProcessMachines implements ComputeDriver {
  readonly name = 'process-machines';
  #machines = new Map<string, ProcessConsole>();

  /** Starts `command` as the machine `key`. */
  run(key: string, command: readonly string[]): { exited: Promise<number | null>; stop(): void } {
    const [file, ...args] = command;
    if (file === undefined) throw new Error('no command');
    const machine = new ProcessConsole(spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] }));
    this.#machines.set(key, machine);
    return machine;
  }

  async open(_onEvent: (event: ComputeEvent) => void): Promise<void> {}

  /** As the contract says, the machines outlive the driver's close: the runtime closes it, and they run on. */
  async close(): Promise<void> {}

  /** Ends every machine (the test's own cleanup). */
  async stopAll(): Promise<void> {
    for (const machine of this.#machines.values()) machine.stop();
    await Promise.all([...this.#machines.values()].map((m) => m.exited));
  }

  console(key: string): MachineConsole | null {
    const machine = this.#machines.get(key);
    return machine?.running ? machine : null;
  }

  async state(key: string): Promise<MachineState> {
    return this.#machines.get(key)?.running ? 'running' : 'stopped';
  }

  #unsupported(what: string): never {
    throw new Error(`${this.name} runs consoles only, not ${what}`);
  }
  diskCapacityMb(): Promise<number> {
    return this.#unsupported('disks');
  }
  prepareDisk(): Promise<void> {
    return this.#unsupported('disks');
  }
  deployImage(): Promise<void> {
    return this.#unsupported('images');
  }
  deleteDisk(): Promise<void> {
    return this.#unsupported('disks');
  }
  resizeDisk(): Promise<void> {
    return this.#unsupported('disks');
  }
  diskMinimumMb(): Promise<number | null> {
    return this.#unsupported('disks');
  }
  setRootPassword(): Promise<void> {
    return this.#unsupported('disks');
  }
  readDiskFile(): Promise<never> {
    return this.#unsupported('disks');
  }
  snapshotDisks(): Promise<never> {
    return this.#unsupported('disks');
  }
  restoreDisk(): Promise<void> {
    return this.#unsupported('disks');
  }
  copyDisk(): Promise<void> {
    return this.#unsupported('disks');
  }
  captureDisk(): Promise<never> {
    return this.#unsupported('disks');
  }
  writeNetwork(): Promise<void> {
    return this.#unsupported('disks');
  }
  memoryFreeMb(): number {
    return this.#unsupported('memory accounting');
  }
  start(): Promise<void> {
    return this.#unsupported('machine starts');
  }
  stop(): Promise<void> {
    return this.#unsupported('machine stops');
  }
  destroy(): Promise<void> {
    return this.#unsupported('machine removal');
  }
  ports(): readonly [] {
    return this.#unsupported('ports');
  }
  counters(_key: string): Promise<MachineCounters | null> {
    return this.#unsupported('counters');
  }
  applyFirewall(): Promise<void> {
    return this.#unsupported('firewalls');
  }
}
