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
}

export interface JobHandler {
  kind: string;
  /** Must be idempotent: after a crash a job whose lease ran out is run again. */
  run(job: JobContext): Promise<void>;
  /** Called, in its own transaction, once the job has failed max_attempts times. */
  onGiveUp?(job: JobContext, error: unknown): Promise<void>;
}
