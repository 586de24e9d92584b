import { type Selectable, sql } from 'kysely';
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
 * Takes the lease of the next due job, atomically. On PostgreSQL concurrent workers
 * skip rows another worker is claiming; SQLite serialises writers, so the single
 * UPDATE is already atomic.
 */
export async function claimNextJob(db: Db, kind: DbKind, r: ClaimRequest): Promise<JobRow | undefined> {
  const lock = kind === 'postgres' ? sql`for update skip locked` : sql``;
  const skip = r.skipKinds?.length ? sql`and kind not in (${sql.join(r.skipKinds)})` : sql``;
  const skipKeys = r.skipKeys?.length
    ? sql`and (concurrency_key is null or concurrency_key not in (${sql.join(r.skipKeys)}))`
    : sql``;
  const host = r.host ? sql`and host = ${r.host}` : sql`and host is null`;
  const result = await sql<JobRow>`
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
    returning *`.execute(db);
  return result.rows[0];
}
