import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { VERSION } from '../../src/version.ts';
import { buildTestApp, DIALECTS, type Reply, type TestApp } from '../helpers/app.ts';

const readyz = (app: TestApp) => app.request('GET', '/readyz', { token: null });

/** /readyz once it answers `status`; a failure after a generous bound, so a part that never changes fails rather than hangs. */
async function readyzOnce(app: TestApp, status: number): Promise<Reply> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await readyz(app);
    if (res.status === status) return res;
    if (Date.now() > deadline) assert.fail(`/readyz did not answer ${status}: ${JSON.stringify(res.body)}`);
    await sleep(50);
  }
}

for (const dialect of DIALECTS) {
  describe(`/readyz reports each part [${dialect}]`, () => {
    test('every part asked for is up: the database with its kind, the worker, the nameserver at its address, the probes', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { inProcessWorker: true, dnsListen: '127.0.0.1:0' } });
      const res = await readyz(app);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, {
        status: 'ready',
        version: VERSION,
        checks: {
          database: { status: 'up', kind: dialect },
          worker: { status: 'up' },
          nameserver: { status: 'up', listen: app.runtime.nameserver?.address },
          probes: { status: 'up' },
        },
      });
      assert.match(String(app.runtime.nameserver?.address), /^127\.0\.0\.1:[1-9]\d*$/);
    });

    test('parts the configuration does not ask for are off, and the server is ready', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await readyz(app);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, {
        status: 'ready',
        version: VERSION,
        checks: {
          database: { status: 'up', kind: dialect },
          worker: { status: 'off' },
          nameserver: { status: 'off' },
          probes: { status: 'off' },
        },
      });
    });

    test('a stopped worker: 503, the worker and its probes down', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { inProcessWorker: true } });
      await app.runtime.worker?.stop();
      const res = await readyz(app);
      assert.equal(res.status, 503);
      assert.equal(res.body.status, 'unavailable');
      assert.deepEqual(res.body.checks.worker, { status: 'down' });
      assert.deepEqual(res.body.checks.probes, { status: 'down' });
      assert.deepEqual(res.body.checks.database, { status: 'up', kind: dialect });
    });

    test('a worker held by a job that does not end reads down, and up again once it ends', async (t) => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const hang: JobHandler = { kind: 'test.hang', prepare: () => held, run: async () => {} };
      const app = await buildTestApp(t, { dialect, config: { inProcessWorker: true, workerPollMs: 10 }, jobHandlers: [hang] });
      try {
        assert.equal((await readyz(app)).status, 200);
        const { ctx } = app.runtime;
        await enqueueJob(ctx.db, ctx.clock, { kind: 'test.hang' });
        ctx.wakeWorker();
        const stuck = await readyzOnce(app, 503);
        assert.deepEqual(stuck.body.checks.worker, { status: 'down' });
        release();
        const moving = await readyzOnce(app, 200);
        assert.deepEqual(moving.body.checks.worker, { status: 'up' });
      } finally {
        release();
      }
    });

    test('a closed nameserver: 503, the nameserver down at the address configured', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { dnsListen: '127.0.0.1:0' } });
      await app.runtime.nameserver?.close();
      const res = await readyz(app);
      assert.equal(res.status, 503);
      assert.equal(res.body.status, 'unavailable');
      assert.deepEqual(res.body.checks.nameserver, { status: 'down', listen: '127.0.0.1:0' });
    });

    test('the database gone: 503, the database down', async (t) => {
      const app = await buildTestApp(t, { dialect });
      await app.runtime.database.close();
      const res = await readyz(app);
      assert.equal(res.status, 503);
      assert.equal(res.body.status, 'unavailable');
      assert.deepEqual(res.body.checks.database, { status: 'down', kind: dialect });
    });
  });
}
