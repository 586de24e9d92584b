import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { type ClaimRequest, claimNextJob } from '../../src/db/job-claim.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

const BACKLOG = 5000;

function request(dueBy: number): ClaimRequest {
  return { dueBy, now: Date.now(), leaseUntil: Date.now() + 10_000, leaseToken: 'plan-test', host: null };
}

/**
 * The plans of a claim as PostgreSQL runs it, the statement inside `claim_next_job` included, as
 * auto_explain reports them to the client that ran it (PostgreSQL's own module).
 */
async function claimPlans(url: string, r: ClaimRequest): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const plans: string[] = [];
  client.on('notice', (notice) => plans.push(notice.message ?? ''));
  try {
    await client.query(`load 'auto_explain'`);
    await client.query('set auto_explain.log_min_duration = 0');
    await client.query('set auto_explain.log_nested_statements = on');
    await client.query('set auto_explain.log_level = notice');
    await client.query('select * from claim_next_job($1, $2, $3, $4, $5, $6, $7)', [
      r.leaseToken,
      r.leaseUntil,
      r.dueBy,
      r.now,
      [],
      [],
      null,
    ]);
  } finally {
    await client.end();
  }
  return plans;
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

      // Without the setting the plan depends on the counts, which differ from one database to the
      // next; the claim's own plan must not.
      const plans = await claimPlans(app.databaseUrl as string, request(base));
      const inner = plans.find((plan) => /Update on jobs/.test(plan));
      assert.ok(inner, `the claim's own statement is reported: ${plans.join('\n')}`);
      assert.match(inner, /Index Scan using jobs_claim_order on jobs/);
      assert.doesNotMatch(inner, /Sort/);
      const claimed = await sql<{ id: number }>`select id from jobs where lease_token = 'plan-test'`.execute(db);
      assert.equal(claimed.rows[0]?.id, early.rows[0]?.id, 'the job due first, leased by the claim whose plans were read');
      await sql`update jobs set lease_token = null, lease_until = null, attempts = 0`.execute(db);

      const first = await claimNextJob(db, 'postgres', request(base));
      assert.equal(first?.id, early.rows[0]?.id, 'the job due first');
      const next = await sql<{ id: number }>`select id from jobs where lease_token is null order by run_at, id limit 1`.execute(
        db,
      );
      const second = await claimNextJob(db, 'postgres', request(base));
      assert.equal(second?.id, next.rows[0]?.id, 'then the next in due time, and among jobs due at once the lowest id');
    });
  });
}
