import type { Transaction } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/database.ts';
import type { JobRow } from '../db/job-claim.ts';

export interface JobContext {
  /** The job's transaction: its effects commit together with the job's removal. */
  trx: Transaction<Database>;
  job: JobRow;
  payload: Record<string, unknown>;
  ctx: Context;
  /** What `prepare` gave, when the handler has one. */
  prepared?: unknown;
}

/** A job before its transaction: it may read, and wait on the network, but writes nothing. */
export type PrepareContext = Omit<JobContext, 'trx' | 'prepared'>;

export interface JobHandler {
  kind: string;
  /**
   * Runs beside other jobs (up to the worker's `parallel` limit) instead of one at a time: for work
   * whose `prepare` waits on the network and whose `run` locks only its own rows.
   */
  parallel?: boolean;
  /**
   * Work done before the job's transaction opens (network I/O, which must not hold a transaction
   * or row locks); `run` gets its result as `prepared` and, holding its locks, checks it still applies.
   */
  prepare?(job: PrepareContext): Promise<unknown>;
  /** Must be idempotent: after a crash a job whose lease ran out is run again. */
  run(job: JobContext): Promise<void>;
  /** Called, in its own transaction, once the job has failed max_attempts times. */
  onGiveUp?(job: JobContext, error: unknown): Promise<void>;
}
