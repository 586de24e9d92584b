import { sql } from 'kysely';
import type { DbKind } from '../database.ts';
import type { MigrationDb } from './schema-helpers.ts';

/**
 * PostgreSQL: the job claim as a function that plans its statement with sorting off, so that a claim
 * is one statement, without a transaction of its own to set it in (which cost a worker four round
 * trips a claim: begin, the setting, the claim, commit). The planner's row counts for a queue table
 * are stale by nature (analysed when nothing was queued, then thousands are): trusting them, it
 * fetched every due job and sorted them; with sorting off it reads the claim-order index
 * (`jobs_claim_order`) and stops at the first job it can lock. A function's SET clause holds while
 * it runs, its statement's planning included. SQLite's claim is one statement already.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  if (kind !== 'postgres') return;
  await sql`
    create function claim_next_job(
      lease text, leased_until bigint, due_by bigint, now_ms bigint, skip_kinds text[], skip_keys text[], for_host text
    ) returns setof jobs language sql volatile set enable_sort = off as $$
      update jobs set lease_token = lease, lease_until = leased_until, attempts = attempts + 1
      where id = (
        select id from jobs
        where status = 'queued' and run_at <= due_by and (lease_until is null or lease_until < now_ms)
          and kind <> all(skip_kinds)
          and (concurrency_key is null or concurrency_key <> all(skip_keys))
          and host is not distinct from for_host
        order by run_at, id
        limit 1
        for update skip locked
      )
      returning *
    $$`.execute(db);
}
