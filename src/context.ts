import type { Logger } from 'pino';
import type { OperatorState } from './admin/operator-state.ts';
import type { BlobStore } from './blob/blob-store.ts';
import type { ComputeDriver } from './compute/driver.ts';
import type { Config } from './config.ts';
import type { Db, DbKind } from './db/database.ts';
import type { Catalog } from './domain/catalog/catalog.ts';
import type { EgressPolicy } from './net/egress.ts';
import type { Random } from './random.ts';
import type { SecretBox } from './secrets/secret-box.ts';
import type { Clock, Timing } from './time/clock.ts';

/** What every service and job handler works with; built once per process. */
export interface Context {
  readonly config: Config;
  readonly db: Db;
  readonly dbKind: DbKind;
  /** Where the data lives (no credentials), for logs and the admin info. */
  readonly dbLocation: string;
  readonly clock: Clock;
  readonly timing: Timing;
  readonly random: Random;
  readonly catalog: Catalog;
  readonly log: Logger;
  /** Image data and other large binaries. */
  readonly blobs: BlobStore;
  /** Seals and opens the secrets kept in the database (managed credentials, managed SSH private keys). */
  readonly secrets: SecretBox;
  /** Where connections made for a tenant (probes, DNS checks, transfers, NOTIFY) may go. */
  readonly egress: EgressPolicy;
  /** What runs nodes for real (CUMULO_COMPUTE=qemu); null when they are simulated and operations end on timers. */
  readonly compute: ComputeDriver | null;
  /** The operator's settings shared by every process (clock offset, transitions, faults). */
  readonly operator: OperatorState;
  /** Tells an in-process worker that a job may have become due. */
  wakeWorker(): void;
  /** Runs every job due now in this process, before returning how many ran. */
  runDueJobs(): Promise<number>;
}
