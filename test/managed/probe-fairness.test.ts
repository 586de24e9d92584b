import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jobHandlers } from '../../src/job-handlers.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, LOOPBACK_EGRESS } from '../helpers/app.ts';
import { addService, statusOf, until } from './probe-helpers.ts';
import { startSilentServer, startWebServer } from './probe-servers.ts';

for (const dialect of DIALECTS) {
  describe(`probes of several accounts [${dialect}]`, () => {
    test("one account's hanging probes leave worker slots for another account's", async (t) => {
      // The next round a day later (86 s at the tests' time scale): the fresh service's first probe is counted alone.
      const app = await buildTestApp(t, {
        dialect,
        config: { ...LOOPBACK_EGRESS, workerParallel: 4, managedProbeIntervalSec: 86_400 },
      });
      const { ctx } = app.runtime;
      const silent = await startSilentServer(t);
      const web = await startWebServer(t);
      const hanging: number[] = [];
      for (let i = 0; i < 6; i++) {
        const address = `http://127.0.0.1:${silent.port}/`;
        hanging.push((await addService(app, { label: `hangs-${i}`, service_type: 'url', address, timeout: 255 })).id);
      }
      const other = await newAccount(app);
      const fresh = await addService(app, { label: 'fresh', service_type: 'url', address: web.url }, other.token);
      const worker = new Worker(ctx, jobHandlers(false), { pollMs: 10, parallel: ctx.config.workerParallel });
      worker.start();
      // Stopped here, not in an after hook: those of the app (dropping its database) run first.
      try {
        await until(async () => (await statusOf(app, fresh.id, other.token)) === 'ok', "the other account's service is probed");
        assert.equal(web.requests, 1);
        assert.equal(silent.open, 1, "the first account's probe still hangs, in the one slot its account may hold");
        assert.equal(silent.mostOpen, 1);
        for (const id of hanging) assert.equal(await statusOf(app, id), 'pending');
      } finally {
        silent.close();
        await worker.stop();
      }
    });
  });
}
