import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/open.ts';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

const JOBS = 120;

const slowRecord: JobHandler = {
  kind: 'test.race',
  async run({ trx, job }) {
    await sql`insert into job_runs (job_id) values (${job.id})`.execute(trx);
    // Hold the transaction a moment so the two workers overlap.
    await new Promise((r) => setTimeout(r, 2));
  },
};

// Scale-out (several worker processes on one database) is a PostgreSQL deployment: the
// embedded database serves one process, whose requests and worker share one connection.
for (const dialect of DIALECTS.filter((d) => d === 'postgres')) {
  describe(`two workers on one database [${dialect}]`, () => {
    test('never run the same job twice, and together run them all', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      await sql`create table job_runs (job_id integer not null)`.execute(ctx.db);
      for (let i = 0; i < JOBS; i++) await enqueueJob(ctx.db, ctx.clock, { kind: 'test.race' });

      // A second, independent connection (pool) to the same database, as another process would have.
      const other = openDatabase({
        databaseUrl: app.databaseUrl,
        dataDir: app.dataDir,
      });
      t.after(() => other.close());
      const a = new Worker(ctx, [slowRecord], { pollMs: 2 });
      const b = new Worker({ ...ctx, db: other.db }, [slowRecord], { pollMs: 2 });
      await Promise.all([a.drain(), b.drain()]);

      const rows = (await sql<{ job_id: number }>`select job_id from job_runs`.execute(ctx.db)).rows;
      const ids = rows.map((r) => Number(r.job_id));
      assert.equal(ids.length, JOBS, 'every job ran');
      assert.equal(new Set(ids).size, JOBS, 'no job ran twice');
      assert.ok(a.processed > 0 && b.processed > 0, `both workers took jobs (a=${a.processed}, b=${b.processed})`);
      const left = await ctx.db.selectFrom('jobs').select('id').execute();
      assert.equal(left.length, 0);
    });

    test('running parallel jobs with concurrency keys, each runs once and each worker keeps to its limit per key', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      await sql`create table job_runs (job_id integer not null)`.execute(ctx.db);
      const keys = ['k0', 'k1', 'k2'];
      for (let i = 0; i < 36; i++) await enqueueJob(ctx.db, ctx.clock, { kind: 'test.keyed', concurrencyKey: keys[i % 3] });
      const other = openDatabase({
        databaseUrl: app.databaseUrl,
        dataDir: app.dataDir,
      });
      t.after(() => other.close());
      /** A parallel kind that waits a moment in `prepare`, counting how many of each key one worker runs at once. */
      const keyed = () => {
        const running = new Map<string, number>();
        let most = 0;
        const handler: JobHandler = {
          kind: 'test.keyed',
          parallel: true,
          async prepare({ job }) {
            const key = String(job.concurrency_key);
            running.set(key, (running.get(key) ?? 0) + 1);
            most = Math.max(most, running.get(key) ?? 0);
            await new Promise((r) => setTimeout(r, 5));
            running.set(key, (running.get(key) ?? 1) - 1);
          },
          async run({ trx, job }) {
            await sql`insert into job_runs (job_id) values (${job.id})`.execute(trx);
          },
        };
        return { handler, most: () => most };
      };
      const ka = keyed();
      const kb = keyed();
      const a = new Worker(ctx, [ka.handler], { pollMs: 2, parallel: 4 });
      const b = new Worker({ ...ctx, db: other.db }, [kb.handler], { pollMs: 2, parallel: 4 });
      a.start();
      b.start();
      try {
        for (let i = 0; i < 1000; i++) {
          const r = await sql<{ n: number }>`select count(*) as n from job_runs`.execute(ctx.db);
          if (Number(r.rows[0]?.n) >= 36) break;
          await new Promise((r) => setTimeout(r, 10));
        }
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
      const ids = (await sql<{ job_id: number }>`select job_id from job_runs`.execute(ctx.db)).rows.map((r) => Number(r.job_id));
      assert.equal(ids.length, 36, 'every job ran');
      assert.equal(new Set(ids).size, 36, 'no job ran twice');
      assert.ok(a.processed > 0 && b.processed > 0, `both workers took jobs (a=${a.processed}, b=${b.processed})`);
      assert.equal(ka.most(), 1, 'one job of a key at a time in a worker of four slots');
      assert.equal(kb.most(), 1);
    });
  });
}
