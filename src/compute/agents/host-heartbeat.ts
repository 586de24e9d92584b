import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/database.ts';
import type { ComputeDriver, ForwardedPort } from '../driver.ts';
import { machinesDir } from '../qemu/data-layout.ts';
import { reportHost } from './host-registry.ts';

const MIB = 1024 ** 2;

export interface HostHeartbeatOptions {
  db: Kysely<Database>;
  driver: ComputeDriver;
  /** The driver's folder (CUMULO_DATA_DIR/compute): its machines and disks. */
  computeDir: string;
  name: string;
  regions: readonly string[] | null;
  memoryTotalMb: number;
  intervalMs: number;
  log: Logger;
  /** Runs after each report (the agent's nodes following its machines). */
  afterBeat?: () => Promise<void>;
}

/** An agent's reports of its host: one at start, then one every `intervalMs`, until stopped. */
export class HostHeartbeat {
  #options: HostHeartbeatOptions;
  #startedAt = Date.now();
  #timer: NodeJS.Timeout | null = null;
  #beating: Promise<void> = Promise.resolve();
  #inFlight = false;

  constructor(options: HostHeartbeatOptions) {
    this.#options = options;
  }

  /** Reports now; the first report must reach the database before the agent claims jobs. */
  async start(): Promise<void> {
    await this.beat();
    this.#timer = setInterval(() => {
      // A report still being written (a slow database) is not overtaken by the next.
      if (this.#inFlight) return;
      this.#inFlight = true;
      this.#beating = this.beat()
        .catch((err: unknown) => this.#options.log.warn({ err }, 'agent: a heartbeat failed'))
        .finally(() => {
          this.#inFlight = false;
        });
    }, this.#options.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#beating;
  }

  async beat(): Promise<void> {
    const o = this.#options;
    fs.mkdirSync(o.computeDir, { recursive: true, mode: 0o700 });
    const disk = await fs.promises.statfs(o.computeDir);
    await reportHost(o.db, {
      name: o.name,
      regions: o.regions,
      memoryTotalMb: o.memoryTotalMb,
      memoryFreeMb: o.driver.memoryFreeMb(),
      diskFreeMb: Math.floor((disk.bavail * disk.bsize) / MIB),
      diskCapacityMb: await o.driver.diskCapacityMb(),
      machines: await this.#machines(),
      startedAt: this.#startedAt,
      heartbeatAt: Date.now(),
    });
    await o.afterBeat?.();
  }

  /** The running machines under the driver's folder, with their forwarded ports. */
  async #machines(): Promise<Record<string, readonly ForwardedPort[]>> {
    const dir = machinesDir(this.#options.computeDir);
    const machines: Record<string, readonly ForwardedPort[]> = {};
    for (const key of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      if ((await this.#options.driver.state(key)) === 'running') machines[key] = this.#options.driver.ports(key);
    }
    return machines;
  }
}
