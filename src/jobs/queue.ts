import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Clock } from '../time/clock.ts';
import { toTimestamp } from '../time/timestamp.ts';

export interface EnqueueSpec {
  kind: string;
  payload?: Record<string, unknown>;
  /** Service-clock ms when the job is due; now when absent. */
  runAt?: number;
  accountId?: number | null;
  /** While a queued job holds this key, enqueueing another with it does nothing. */
  dedupeKey?: string;
  maxAttempts?: number;
}

/**
 * Writes a job; call it with the transaction of the change the job follows up on,
 * so the change and its follow-up commit or vanish together.
 */
export async function enqueueJob(db: Kysely<Database>, clock: Clock, spec: EnqueueSpec): Promise<number | undefined> {
  const now = clock.nowMs();
  const row = await db
    .insertInto('jobs')
    .values({
      account_id: spec.accountId ?? null,
      kind: spec.kind,
      payload: JSON.stringify(spec.payload ?? {}),
      run_at: spec.runAt ?? now,
      status: 'queued',
      attempts: 0,
      max_attempts: spec.maxAttempts ?? 10,
      dedupe_key: spec.dedupeKey ?? null,
      lease_token: null,
      lease_until: null,
      last_error: null,
      created: toTimestamp(now),
    })
    .onConflict((oc) => oc.column('dedupe_key').where('dedupe_key', 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** Jobs waiting to run (due or not), for metrics and the info endpoint. */
export async function countQueuedJobs(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'queued')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Recurring work: the running job gives up its dedupe key (in its own transaction) so that the
 * successor it queues can hold the key.
 */
export async function releaseDedupeKey(db: Kysely<Database>, jobId: number): Promise<void> {
  await db.updateTable('jobs').set({ dedupe_key: null }).where('id', '=', jobId).execute();
}
