import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';

async function createProbeTable(app: TestApp) {
  await sql`create table job_runs (job_id integer not null, note text not null)`.execute(app.runtime.ctx.db);
}

async function runs(app: TestApp): Promise<{ job_id: number; note: string }[]> {
  const r = await sql<{ job_id: number; note: string }>`select job_id, note from job_runs order by job_id`.execute(
    app.runtime.ctx.db,
  );
  return r.rows;
}

const recordRun: JobHandler = {
  kind: 'test.record',
  async run({ trx, job, payload }) {
    await sql`insert into job_runs (job_id, note) values (${job.id}, ${String(payload.note ?? '')})`.execute(trx);
  },
};

let failuresLeft = 0;
const flaky: JobHandler = {
  kind: 'test.flaky',
  async run({ trx, job }) {
    await sql`insert into job_runs (job_id, note) values (${job.id}, 'attempt')`.execute(trx);
    if (failuresLeft > 0) {
      failuresLeft -= 1;
      throw new Error('simulated failure');
    }
  },
  async onGiveUp({ trx, job }) {
    await sql`insert into job_runs (job_id, note) values (${job.id}, 'gave up')`.execute(trx);
  },
};

function workerFor(app: TestApp, ctx = app.runtime.ctx) {
  return new Worker(ctx, [recordRun, flaky], { pollMs: 5 });
}

for (const dialect of DIALECTS) {
  describe(`job worker [${dialect}]`, () => {
    test('runs a due job once, in its own transaction, and removes it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      await createProbeTable(app);
      const { ctx } = app.runtime;
      await enqueueJob(ctx.db, ctx.clock, { kind: 'test.record', payload: { note: 'hello' } });
      const worker = workerFor(app);
      assert.equal(await worker.drain(), 1);
      assert.deepEqual(
        (await runs(app)).map((r) => r.note),
        ['hello'],
      );
      assert.equal(await worker.drain(), 0);
      const left = await ctx.db.selectFrom('jobs').selectAll().execute();
      assert.equal(left.length, 0);
    });

    test('a job is not run before it is due; the clock makes it due', async (t) => {
      const app = await buildTestApp(t, { dialect });
      await createProbeTable(app);
      const { ctx } = app.runtime;
      await enqueueJob(ctx.db, ctx.clock, { kind: 'test.record', runAt: ctx.clock.nowMs() + 3_600_000 });
      const worker = workerFor(app);
      assert.equal(await worker.drain(), 0);
      ctx.clock.advance(3_600_000);
      assert.equal(await worker.drain(), 1);
    });

    test('a job written in a transaction that rolls back never runs', async (t) => {
      const app = await buildTestApp(t, { dialect });
      await createProbeTable(app);
      const { ctx } = app.runtime;
      await assert.rejects(
        ctx.db.transaction().execute(async (trx) => {
          await enqueueJob(trx, ctx.clock, { kind: 'test.record' });
          throw new Error('the change failed');
        }),
      );
      assert.equal(await workerFor(app).drain(), 0);
    });

    test('a dedupe key keeps recurring work single', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const first = await enqueueJob(ctx.db, ctx.clock, { kind: 'test.record', dedupeKey: 'probe:1' });
      const second = await enqueueJob(ctx.db, ctx.clock, { kind: 'test.record', dedupeKey: 'probe:1' });
      assert.equal(typeof first, 'number');
      assert.equal(second, undefined);
      const rows = await ctx.db.selectFrom('jobs').select('id').execute();
      assert.equal(rows.length, 1);
    });

    test('failures are retried with backoff, then given up on', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { timeScale: 1 } });
      await createProbeTable(app);
      const { ctx } = app.runtime;
      failuresLeft = 1;
      await enqueueJob(ctx.db, ctx.clock, { kind: 'test.flaky', maxAttempts: 3 });
      const worker = workerFor(app);
      assert.equal(await worker.drain(), 1);
      // The failed attempt rolled back its effects and is not due until the backoff passes.
      assert.equal((await runs(app)).length, 0);
      const [queued] = await ctx.db.selectFrom('jobs').selectAll().execute();
      assert.equal(queued?.status, 'queued');
      assert.equal(queued?.attempts, 1);
      assert.match(queued?.last_error ?? '', /simulated failure/);
      assert.ok((queued?.run_at ?? 0) > ctx.clock.nowMs() - 1);
      ctx.clock.advance(60_000);
      assert.equal(await worker.drain(), 1);
      assert.deepEqual(
        (await runs(app)).map((r) => r.note),
        ['attempt'],
      );

      failuresLeft = 99;
      await enqueueJob(ctx.db, ctx.clock, { kind: 'test.flaky', maxAttempts: 2 });
      await worker.drain();
      ctx.clock.advance(600_000);
      await worker.drain();
      const [failed] = await ctx.db.selectFrom('jobs').selectAll().execute();
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.attempts, 2);
      assert.deepEqual(
        (await runs(app)).map((r) => r.note),
        ['attempt', 'gave up'],
      );
      failuresLeft = 0;
    });

    test('a job of an unknown kind fails visibly instead of vanishing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      await enqueueJob(ctx.db, ctx.clock, { kind: 'test.nobody-handles-this', maxAttempts: 1 });
      await workerFor(app).drain();
      const [job] = await ctx.db.selectFrom('jobs').selectAll().execute();
      assert.equal(job?.status, 'failed');
      assert.match(job?.last_error ?? '', /no handler/);
    });

    test('stop() waits for the running job', async (t) => {
      const app = await buildTestApp(t, { dialect });
      await createProbeTable(app);
      const { ctx } = app.runtime;
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let started: () => void = () => {};
      const startedP = new Promise<void>((r) => {
        started = r;
      });
      const slow: JobHandler = {
        kind: 'test.slow',
        async run({ trx, job }) {
          started();
          await gate;
          await sql`insert into job_runs (job_id, note) values (${job.id}, 'slow done')`.execute(trx);
        },
      };
      const worker = new Worker(ctx, [slow], { pollMs: 5 });
      await enqueueJob(ctx.db, ctx.clock, { kind: 'test.slow' });
      worker.start();
      await startedP;
      const stopping = worker.stop();
      release();
      await stopping;
      assert.deepEqual(
        (await runs(app)).map((r) => r.note),
        ['slow done'],
      );
    });
  });
}
