import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../db/database.ts';
import type { ComputeDriver, ComputeEvent, ForwardedPort, MachineConsole, MachineCounters, MachineState } from '../driver.ts';
import { type HostReport, hostIsLive, listHosts } from './host-registry.ts';

/**
 * The compute driver of an API server or worker whose machines run on agents (CUMULO_COMPUTE=agents):
 * it answers what a request asks (a machine's state and ports, the room for disks) from the agents'
 * last reports, read again every `refreshMs`. What changes a machine or a disk is the work of a job
 * that carries its node's host, which only that host's agent claims: here it is an error.
 */
export class AgentsDriver implements ComputeDriver {
  readonly name = 'agents';
  #db: Kysely<Database>;
  #offlineMs: number;
  #refreshMs: number;
  #log: Logger;
  #hosts: HostReport[] = [];
  #timer: NodeJS.Timeout | null = null;

  constructor(options: { db: Kysely<Database>; offlineMs: number; refreshMs: number; log: Logger }) {
    this.#db = options.db;
    this.#offlineMs = options.offlineMs;
    this.#refreshMs = options.refreshMs;
    this.#log = options.log;
  }

  /** The reports as last read, and whether each agent was live then. */
  get hosts(): readonly HostReport[] {
    return this.#hosts;
  }

  async refresh(): Promise<void> {
    this.#hosts = await listHosts(this.#db);
  }

  async open(_onEvent: (event: ComputeEvent) => void): Promise<void> {
    await this.refresh();
    this.#timer = setInterval(() => {
      this.refresh().catch((err: unknown) => this.#log.warn({ err }, 'compute: reading the agents reports failed'));
    }, this.#refreshMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #live(): HostReport[] {
    const now = Date.now();
    return this.#hosts.filter((h) => hostIsLive(h, now, this.#offlineMs));
  }

  /** The live host running the machine, if any. */
  #hostOf(key: string): HostReport | undefined {
    return this.#live().find((h) => key in h.machines);
  }

  /** The most any live host holds (a node's disks go on one host; placement counts each host's own). */
  async diskCapacityMb(): Promise<number> {
    return Math.max(0, ...this.#live().map((h) => h.diskCapacityMb ?? h.diskFreeMb));
  }

  memoryFreeMb(): number {
    return Math.max(0, ...this.#live().map((h) => h.memoryFreeMb));
  }

  async state(key: string): Promise<MachineState> {
    return this.#hostOf(key) ? 'running' : 'stopped';
  }

  ports(key: string): readonly ForwardedPort[] {
    return this.#hostOf(key)?.machines[key] ?? [];
  }

  /** A console is held by the agent's process; none reaches it from here. */
  console(_key: string): MachineConsole | null {
    return null;
  }

  async counters(_key: string): Promise<MachineCounters | null> {
    return null;
  }

  /** Unknown here: the disk is on its agent's host (a shrink is checked by the agent's work). */
  async diskMinimumMb(): Promise<number | null> {
    return null;
  }

  #onAgent(what: string): Promise<never> {
    return Promise.reject(
      new Error(`${what} runs on the node's agent; a job doing it must carry the node's host (this process has no machines)`),
    );
  }

  prepareDisk(): Promise<void> {
    return this.#onAgent('preparing a disk');
  }
  deployImage(): Promise<void> {
    return this.#onAgent('deploying an image');
  }
  deleteDisk(): Promise<void> {
    return this.#onAgent('deleting a disk');
  }
  resizeDisk(): Promise<void> {
    return this.#onAgent('resizing a disk');
  }
  setRootPassword(): Promise<void> {
    return this.#onAgent('setting a root password');
  }
  readDiskFile(): Promise<never> {
    return this.#onAgent('reading a disk');
  }
  snapshotDisks(): Promise<never> {
    return this.#onAgent('copying disks');
  }
  restoreDisk(): Promise<void> {
    return this.#onAgent('restoring a disk');
  }
  copyDisk(): Promise<void> {
    return this.#onAgent('copying a disk');
  }
  captureDisk(): Promise<never> {
    return this.#onAgent('capturing a disk');
  }
  writeNetwork(): Promise<void> {
    return this.#onAgent('writing network settings');
  }
  start(): Promise<void> {
    return this.#onAgent('starting a machine');
  }
  stop(): Promise<void> {
    return this.#onAgent('stopping a machine');
  }
  destroy(): Promise<void> {
    return this.#onAgent('destroying a machine');
  }
  applyFirewall(): Promise<void> {
    return this.#onAgent('applying a firewall');
  }
}
