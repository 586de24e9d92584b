import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import { preparedStatement } from '../db/prepared.ts';
import type { Clock } from '../time/clock.ts';
import { toTimestamp } from '../time/timestamp.ts';
import type { JobTable } from './job.table.ts';

export interface EnqueueSpec {
  kind: string;
  payload?: Record<string, unknown>;
  /** Service-clock ms when the job is due; now when absent. */
  runAt?: number;
  accountId?: number | null;
  /** While a queued job holds this key, enqueueing another with it does nothing (but see `hasten`). */
  dedupeKey?: string;
  /** With a dedupe key: a queued job holding the key and due later than `runAt` is made due at `runAt`. */
  hasten?: boolean;
  maxAttempts?: number;
  /** Jobs sharing a key (e.g. one tenant's) take at most a few of a worker's parallel slots at once. */
  concurrencyKey?: string;
  /** Holds the job (status `held`, never claimed) until an operator advances this transition kind. */
  heldFor?: string;
  /** Only this compute host's agent claims the job (it does a node's real work there). */
  host?: string | null;
}

const insertJob = preparedStatement((db, values: Insertable<JobTable>) =>
  db
    .insertInto('jobs')
    .values(values)
    .onConflict((oc) => oc.column('dedupe_key').where('dedupe_key', 'is not', null).doNothing())
    .returning('id'),
);

/**
 * Writes a job; call it with the transaction of the change the job follows up on,
 * so the change and its follow-up commit or vanish together.
 */
export async function enqueueJob(db: Kysely<Database>, clock: Clock, spec: EnqueueSpec): Promise<number | undefined> {
  const now = clock.nowMs();
  const [row] = await insertJob(db, '', {
    account_id: spec.accountId ?? null,
    kind: spec.kind,
    payload: JSON.stringify(spec.payload ?? {}),
    run_at: spec.runAt ?? now,
    status: spec.heldFor ? 'held' : 'queued',
    transition: spec.heldFor ?? null,
    attempts: 0,
    max_attempts: spec.maxAttempts ?? 10,
    dedupe_key: spec.dedupeKey ?? null,
    concurrency_key: spec.concurrencyKey ?? null,
    lease_token: null,
    lease_until: null,
    last_error: null,
    host: spec.host ?? null,
    created: toTimestamp(now),
  });
  if (!row && spec.hasten && spec.dedupeKey) {
    await db
      .updateTable('jobs')
      .set({ run_at: spec.runAt ?? now })
      .where('dedupe_key', '=', spec.dedupeKey)
      .where('status', '=', 'queued')
      .where('lease_token', 'is', null)
      .where('run_at', '>', spec.runAt ?? now)
      .execute();
  }
  return row?.id;
}

/** Jobs waiting to run (due or not), for metrics. */
export async function countQueuedJobs(db: Kysely<Database>): Promise<number> {
  return (await countJobsByStatus(db)).queued ?? 0;
}

/** How many jobs are in each status (queued, held, failed), for metrics and the admin info. */
export async function countJobsByStatus(db: Kysely<Database>): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/**
 * Recurring work: the running job gives up its dedupe key (in its own transaction) so that the
 * successor it queues can hold the key.
 */
export async function releaseDedupeKey(db: Kysely<Database>, jobId: number): Promise<void> {
  await db.updateTable('jobs').set({ dedupe_key: null }).where('id', '=', jobId).execute();
}

/** Held jobs (waiting on an operator's advance) with the transition kind each waits on. */
export async function findHeldJobs(db: Kysely<Database>): Promise<{ id: number; transition: string | null }[]> {
  return db.selectFrom('jobs').select(['id', 'transition']).where('status', '=', 'held').orderBy('id').execute();
}

/**
 * Makes held jobs (of one transition kind, or one job by id, held or merely not yet due) due now;
 * returns their ids. A failed job or one a worker is running is left alone.
 */
export async function releaseJobs(
  db: Kysely<Database>,
  clock: Clock,
  which: { transition: string } | { id: number },
): Promise<number[]> {
  let query = db.updateTable('jobs').set({ status: 'queued', transition: null, run_at: clock.nowMs() });
  query =
    'id' in which
      ? query.where('id', '=', which.id).where('status', 'in', ['held', 'queued']).where('lease_token', 'is', null)
      : query.where('status', '=', 'held').where('transition', '=', which.transition);
  const rows = await query.returning('id').execute();
  return rows.map((r) => r.id).sort((a, b) => a - b);
}
