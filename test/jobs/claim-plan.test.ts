import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import { type ClaimRequest, claimNextJob, claimStatement, POSTGRES_CLAIM_SETTING } from '../../src/db/job-claim.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

const BACKLOG = 5000;

function request(dueBy: number): ClaimRequest {
  return { dueBy, now: Date.now(), leaseUntil: Date.now() + 10_000, leaseToken: 'plan-test', host: null };
}

/** The plan PostgreSQL makes for the claim under the claim's own setting. */
async function claimPlan(db: Db, r: ClaimRequest): Promise<string> {
  return db.transaction().execute(async (trx) => {
    await POSTGRES_CLAIM_SETTING.execute(trx);
    const rows = (await sql<{ 'QUERY PLAN': string }>`explain ${claimStatement('postgres', r)}`.execute(trx)).rows;
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

// The planner's choice is PostgreSQL's alone: SQLite reads the index in order (its rowid is the id).
for (const dialect of DIALECTS.filter((d) => d === 'postgres')) {
  describe(`claiming a job from a backlog the planner has not counted [${dialect}]`, () => {
    test('reads the claim-order index and sorts nothing; the first due job is the one claimed', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { db } = app.runtime.ctx;
      // Counted while nothing was queued, as a quiet installation's statistics are.
      await sql`analyze jobs`.execute(db);
      const base = app.runtime.ctx.clock.nowMs();
      // A burst: jobs due a hundred at a time over the last second, then one due before all of them.
      await sql`insert into jobs (kind, payload, run_at, status, attempts, max_attempts, created)
        select 'test.backlog', '{}', ${base - 1000}::bigint + g / 100, 'queued', 0, 5, 'now'
        from generate_series(1, ${BACKLOG}) g`.execute(db);
      const early = await sql<{ id: number }>`insert into jobs (kind, payload, run_at, status, attempts, max_attempts, created)
        values ('test.backlog', '{}', ${base - 2000}, 'queued', 0, 5, 'now') returning id`.execute(db);

      const r = request(base);
      // Without the setting the plan depends on the counts, which differ from one database to the
      // next; the claim's own plan must not.
      const plan = await claimPlan(db, r);
      assert.match(plan, /Index Scan using jobs_claim_order on jobs/);
      assert.doesNotMatch(plan, /Sort/);

      const first = await claimNextJob(db, 'postgres', r);
      assert.equal(first?.id, early.rows[0]?.id, 'the job due first');
      const next = await sql<{ id: number }>`select id from jobs where lease_token is null order by run_at, id limit 1`.execute(
        db,
      );
      const second = await claimNextJob(db, 'postgres', request(base));
      assert.equal(second?.id, next.rows[0]?.id, 'then the next in due time, and among jobs due at once the lowest id');
    });
  });
}
