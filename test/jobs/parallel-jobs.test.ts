import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

/** A job that waits (as a probe waits on the network) until the test lets it go. */
function gatedKind(kind: string, parallel: boolean) {
  const started: number[] = [];
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const handler: JobHandler = {
    kind,
    parallel,
    async prepare({ job }) {
      started.push(job.id);
      await gate;
      return job.id;
    },
    async run({ trx, job, prepared }) {
      assert.equal(prepared, job.id);
      await sql`insert into job_runs (job_id) values (${job.id})`.execute(trx);
    },
  };
  return { handler, started, open };
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting until ${what}`);
}

for (const dialect of DIALECTS) {
  describe(`parallel job kinds [${dialect}]`, () => {
    test('run up to the limit at once, beside one-at-a-time jobs, and stop() waits for them', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      await sql`create table job_runs (job_id integer not null)`.execute(ctx.db);
      const slow = gatedKind('test.slow', true);
      const serial = gatedKind('test.serial', false);
      for (let i = 0; i < 5; i++) await enqueueJob(ctx.db, ctx.clock, { kind: 'test.slow' });
      const worker = new Worker(ctx, [slow.handler, serial.handler], { pollMs: 5, parallel: 3 });
      worker.start();
      await until(() => slow.started.length === 3, 'three parallel jobs run');
      // The slots are full: the two left wait, while a one-at-a-time job is still taken.
      await enqueueJob(ctx.db, ctx.clock, { kind: 'test.serial' });
      worker.wake();
      await until(() => serial.started.length === 1, 'the one-at-a-time job starts');
      assert.equal(slow.started.length, 3, 'no fourth parallel job while three run');
      serial.open();
      slow.open();
      await until(async () => {
        const r = await sql<{ n: number }>`select count(*) as n from job_runs`.execute(ctx.db);
        return Number(r.rows[0]?.n) === 6;
      }, 'every job ran');
      await worker.stop();
      assert.equal(slow.started.length, 5);
      assert.equal((await ctx.db.selectFrom('jobs').select('id').execute()).length, 0);
    });

    test('jobs of one concurrency key take at most their share of the slots; other keys take the rest', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      await sql`create table job_runs (job_id integer not null)`.execute(ctx.db);
      const slow = gatedKind('test.slow', true);
      const keyOf = new Map<number, string | null>();
      for (const key of ['busy', 'busy', 'busy', 'busy', 'busy', 'quiet', null]) {
        const id = await enqueueJob(ctx.db, ctx.clock, { kind: 'test.slow', ...(key ? { concurrencyKey: key } : {}) });
        keyOf.set(Number(id), key);
      }
      const worker = new Worker(ctx, [slow.handler], { pollMs: 5, parallel: 4, parallelPerKey: 2 });
      worker.start();
      try {
        await until(() => slow.started.length === 4, 'four jobs run');
        await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual(slow.started.map((id) => keyOf.get(id)).sort(), ['busy', 'busy', 'quiet', null].sort());
        slow.open();
        await until(async () => {
          const r = await sql<{ n: number }>`select count(*) as n from job_runs`.execute(ctx.db);
          return Number(r.rows[0]?.n) === 7;
        }, 'every job ran');
      } finally {
        slow.open();
        await worker.stop();
      }
    });

    test('stop() waits for the parallel jobs in flight, which then commit', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      await sql`create table job_runs (job_id integer not null)`.execute(ctx.db);
      const slow = gatedKind('test.slow', true);
      for (let i = 0; i < 2; i++) await enqueueJob(ctx.db, ctx.clock, { kind: 'test.slow' });
      const worker = new Worker(ctx, [slow.handler], { pollMs: 5, parallel: 4 });
      worker.start();
      await until(() => slow.started.length === 2, 'both jobs run');
      let stopped = false;
      const stopping = worker.stop().then(() => {
        stopped = true;
      });
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(stopped, false, 'stop() waits for jobs in flight');
      slow.open();
      await stopping;
      const r = await sql<{ n: number }>`select count(*) as n from job_runs`.execute(ctx.db);
      assert.equal(Number(r.rows[0]?.n), 2);
    });

    test('a live worker renews the lease of a long job, so no other worker takes it over', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      await sql`create table job_runs (job_id integer not null)`.execute(ctx.db);
      const slow = gatedKind('test.slow', true);
      await enqueueJob(ctx.db, ctx.clock, { kind: 'test.slow' });
      // Renewed every 200 ms: a loaded machine may stall the event loop for tens of milliseconds, not 600.
      const worker = new Worker(ctx, [slow.handler], { pollMs: 5, leaseMs: 600 });
      worker.start();
      await until(() => slow.started.length === 1, 'the job runs');
      // Longer than the lease: without renewal a second worker could claim the job now.
      await new Promise((r) => setTimeout(r, 1500));
      const quick: JobHandler = { kind: 'test.slow', async run() {} };
      const rival = new Worker(ctx, [quick], { pollMs: 5, leaseMs: 600 });
      assert.equal(await rival.runOne(), false, 'the job is still leased');
      slow.open();
      await worker.stop();
      const r = await sql<{ n: number }>`select count(*) as n from job_runs`.execute(ctx.db);
      assert.equal(Number(r.rows[0]?.n), 1);
    });
  });
}
