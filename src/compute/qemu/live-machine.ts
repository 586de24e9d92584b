import fs from 'node:fs';
import type { ComputeEvent } from '../driver.ts';
import { BOOTED_MARKER } from '../images/guest.ts';
import { consoleLogTail } from './console-log.ts';
import type { MachineFiles } from './data-layout.ts';
import { isQemuAlive, waitGone } from './qemu-process.ts';
import { QmpClient } from './qmp.ts';
import { SCREEN_BYTES, SerialConsole } from './serial-console.ts';

const UP_MARKERS = [BOOTED_MARKER, 'login:'];
/**
 * A login prompt without the marker counts as up only after this long: a built image prints its
 * getty's prompt before SSH listens, then the marker; an image without the marker has the prompt alone.
 */
const LOGIN_PROMPT_GRACE_MS = 20_000;
/** How often a machine's process is looked for, besides its QMP connection closing. */
const WATCH_MS = 1_000;
/** How much of an adopted machine's console log is searched for a boot marker, besides the screen. */
const LOG_HEAD_BYTES = 1024 * 1024;

function showsUp(text: string): boolean {
  return UP_MARKERS.some((marker) => text.includes(marker));
}

/** The start of a file, or nothing when it is missing. */
function fileHead(file: string, bytes: number): Buffer {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(bytes);
      return head.subarray(0, fs.readSync(fd, head, 0, bytes, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * A running QEMU this process holds: its QMP connection (events), its serial console, whether the
 * guest is up (a marker on the console), and its end, seen by QMP closing or the process gone.
 */
export class LiveMachine {
  readonly key: string;
  readonly pid: number;
  readonly files: MachineFiles;
  readonly memoryMb: number;
  readonly qmp: QmpClient | null;
  readonly console: SerialConsole | null;
  /** Set by stop, destroy and a start that gave up: an end that was asked for is no event. */
  endAsked = false;
  /** Resolves once the process is gone (not when it is released). */
  readonly gone: Promise<void>;
  #markGone!: () => void;
  #up: boolean;
  #promptTimer: NodeJS.Timeout | undefined;
  #recent = '';
  #upWaiters = new Set<(result: 'up' | 'released') => void>();
  #shutdownReason: string | null = null;
  #panicked = false;
  #watch: NodeJS.Timeout;
  #ended = false;
  #released = false;

  private constructor(
    init: { key: string; pid: number; files: MachineFiles; memoryMb: number },
    qmp: QmpClient | null,
    serial: SerialConsole | null,
    up: boolean,
  ) {
    this.key = init.key;
    this.pid = init.pid;
    this.files = init.files;
    this.memoryMb = init.memoryMb;
    this.qmp = qmp;
    this.console = serial;
    this.#up = up;
    this.gone = new Promise((resolve) => {
      this.#markGone = resolve;
    });
    if (qmp) {
      qmp.onEvent = (event, data) => {
        if (event === 'SHUTDOWN') this.#shutdownReason = typeof data.reason === 'string' ? data.reason : 'unknown';
        if (event === 'GUEST_PANICKED') this.#panicked = true;
      };
      qmp.onClose = () => {
        if (!this.#ended) void waitGone(this.pid, this.files.pid, 10_000).then(() => this.#check());
      };
    }
    if (serial) serial.onOutput = (chunk) => this.#saw(chunk);
    this.#watch = setInterval(() => this.#check(), WATCH_MS).unref();
  }

  /**
   * Takes hold of the QEMU of `pid`: QMP and serial connections. `fresh`: started by this process just now
   * (its console log is this boot's); else adopted, and up when a process saw it up (a rotated log
   * may no longer show it) or its console logs show a marker.
   */
  static async connect(
    init: { key: string; pid: number; files: MachineFiles; memoryMb: number },
    fresh: boolean,
  ): Promise<LiveMachine> {
    const { files } = init;
    const seed = fresh ? Buffer.alloc(0) : consoleLogTail(files, SCREEN_BYTES);
    const logged = [fileHead(files.previousConsoleLog, LOG_HEAD_BYTES), fileHead(files.consoleLog, LOG_HEAD_BYTES), seed];
    const up = !fresh && (fs.existsSync(files.guestUp) || showsUp(logged.map((b) => b.toString('latin1')).join('\n')));
    const qmp = await QmpClient.connect(files.qmp).catch(() => null);
    const serial = await SerialConsole.connect(files.serial, seed).catch(() => null);
    if (fresh && (qmp === null || serial === null)) {
      qmp?.close();
      serial?.close();
      throw new Error(`cannot connect to the ${qmp === null ? 'QMP' : 'serial'} socket of the machine just started`);
    }
    return new LiveMachine(init, qmp, serial, up);
  }

  #saw(chunk: Buffer): void {
    if (this.#up) return;
    this.#recent = (this.#recent + chunk.toString('latin1')).slice(-256);
    if (this.#recent.includes(BOOTED_MARKER)) this.#markUp();
    else if (this.#recent.includes('login:') && this.#promptTimer === undefined) {
      this.#promptTimer = setTimeout(() => this.#markUp(), LOGIN_PROMPT_GRACE_MS);
      this.#promptTimer.unref();
    }
  }

  #markUp(): void {
    if (this.#up || this.#ended) return;
    clearTimeout(this.#promptTimer);
    this.#up = true;
    try {
      fs.writeFileSync(this.files.guestUp, '', { mode: 0o600 });
    } catch {
      // Its folder removed meanwhile: the machine is on its way out.
    }
    for (const wake of this.#upWaiters) wake('up');
  }

  #check(): void {
    if (!this.#ended && !isQemuAlive(this.pid, this.files.pid)) this.#end();
  }

  #end(): void {
    this.#disconnect();
    this.#markGone();
  }

  /** Why QEMU said it shut down (QMP SHUTDOWN: `guest-shutdown`, `host-qmp-quit`, …); null when it did not say. */
  get shutdownReason(): string | null {
    return this.#shutdownReason;
  }

  /** What the end was, unasked: a panic or an end without a shutdown is a crash. */
  endKind(): ComputeEvent['kind'] {
    if (this.#panicked || this.#shutdownReason === 'guest-panic') return 'crashed';
    if (this.#shutdownReason !== null || this.qmp === null) return 'powered_off';
    return 'crashed';
  }

  /** Resolves once the guest is up, the machine gone, the time up, or the machine let go of. */
  waitUp(timeoutMs: number): Promise<'up' | 'gone' | 'timeout' | 'released'> {
    if (this.#up) return Promise.resolve('up');
    if (this.#released) return Promise.resolve('released');
    return new Promise((resolve) => {
      const done = (result: 'up' | 'gone' | 'timeout' | 'released') => {
        clearTimeout(timer);
        this.#upWaiters.delete(wake);
        resolve(result);
      };
      const wake = (result: 'up' | 'released') => done(result);
      const timer = setTimeout(() => done('timeout'), timeoutMs);
      this.#upWaiters.add(wake);
      void this.gone.then(() => done(this.#up ? 'up' : 'gone'));
    });
  }

  /** The console's last lines, for an error message. */
  consoleTail(lines: number): string {
    const screen = this.console?.screen() ?? consoleLogTail(this.files, SCREEN_BYTES);
    return screen.toString('utf8').split(/\r?\n/).slice(-lines).join('\n');
  }

  #disconnect(): void {
    this.#ended = true;
    clearTimeout(this.#promptTimer);
    clearInterval(this.#watch);
    this.qmp?.close();
    this.console?.close();
  }

  /** Lets go of the connections; the machine keeps running. */
  release(): void {
    this.#released = true;
    this.#disconnect();
    for (const wake of this.#upWaiters) wake('released');
  }
}
