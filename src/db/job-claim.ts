import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { JobTable } from '../jobs/job.table.ts';
import type { Db, DbKind } from './database.ts';

export type JobRow = Selectable<JobTable>;

export interface ClaimRequest {
  /** Service-clock ms: jobs due at or before it may be claimed. */
  dueBy: number;
  /** Wall-clock ms: leases that ran out before it are free again. */
  now: number;
  leaseUntil: number;
  leaseToken: string;
  /** Kinds not to claim now (those a worker already runs as many of as it may). */
  skipKinds?: readonly string[];
  /** Concurrency keys not to claim now (those a worker already runs as many of as it may). */
  skipKeys?: readonly string[];
  /** Claims only the jobs of this compute host (an agent's worker); null or absent: only jobs of no host. */
  host?: string | null;
}

/**
 * The planner's row counts for a queue table are stale by nature (analysed when nothing was queued,
 * then thousands are): trusting them, PostgreSQL fetched every due job and sorted them, so a claim
 * cost more the longer the backlog. With sorting off it reads the claim-order index
 * (`jobs_claim_order`) and stops at the first job it can lock. Set in the claim's transaction only.
 */
export const POSTGRES_CLAIM_SETTING = sql`set local enable_sort = off`;

/**
 * Takes the lease of the next due job, atomically. On PostgreSQL concurrent workers
 * skip rows another worker is claiming; SQLite serialises writers, so the single
 * UPDATE is already atomic.
 */
export async function claimNextJob(db: Db, kind: DbKind, r: ClaimRequest): Promise<JobRow | undefined> {
  if (kind !== 'postgres') return (await claimStatement(kind, r).execute(db)).rows[0];
  return db.transaction().execute(async (trx) => {
    await POSTGRES_CLAIM_SETTING.execute(trx);
    return (await claimStatement(kind, r).execute(trx)).rows[0];
  });
}

/** The claim itself: one UPDATE of the first due job, in claim order, that no live lease holds. */
export function claimStatement(kind: DbKind, r: ClaimRequest): RawBuilder<JobRow> {
  const lock = kind === 'postgres' ? sql`for update skip locked` : sql``;
  const skip = r.skipKinds?.length ? sql`and kind not in (${sql.join(r.skipKinds)})` : sql``;
  const skipKeys = r.skipKeys?.length
    ? sql`and (concurrency_key is null or concurrency_key not in (${sql.join(r.skipKeys)}))`
    : sql``;
  const host = r.host ? sql`and host = ${r.host}` : sql`and host is null`;
  return sql<JobRow>`
    update jobs set lease_token = ${r.leaseToken}, lease_until = ${r.leaseUntil}, attempts = attempts + 1
    where id = (
      select id from jobs
      where status = 'queued' and run_at <= ${r.dueBy} and (lease_until is null or lease_until < ${r.now})
      ${skip}
      ${skipKeys}
      ${host}
      order by run_at, id
      limit 1
      ${lock}
    )
    returning *`;
}
