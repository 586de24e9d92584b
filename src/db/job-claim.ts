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
 * Takes the lease of the next due job, atomically, in one statement: the first due job, in claim
 * order, that no live lease holds. On PostgreSQL concurrent workers skip rows another worker is
 * claiming, and the statement is the `claim_next_job` function (migration 0027, which says why);
 * SQLite serialises writers, so its single UPDATE is already atomic.
 */
export async function claimNextJob(db: Db, kind: DbKind, r: ClaimRequest): Promise<JobRow | undefined> {
  if (kind === 'postgres') {
    const { rows } = await sql<JobRow>`select * from claim_next_job(${r.leaseToken}, ${r.leaseUntil}, ${r.dueBy}, ${r.now},
      ${r.skipKinds ?? []}::text[], ${r.skipKeys ?? []}::text[], ${r.host ?? null})`.execute(db);
    return rows[0];
  }
  return (await sqliteClaim(r).execute(db)).rows[0];
}

function sqliteClaim(r: ClaimRequest): RawBuilder<JobRow> {
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
    )
    returning *`;
}
