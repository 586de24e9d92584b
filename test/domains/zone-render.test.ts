import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RENDER_ZONE_JOB } from '../../src/domain/domains/domain-change.ts';
import { jobHandlers } from '../../src/job-handlers.ts';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { addRecord, createDomain } from './helpers.ts';

/** Runs the jobs due now, as the worker would between two requests; returns how many zone renders ran. */
async function renders(app: TestApp): Promise<number> {
  let count = 0;
  const counted = jobHandlers(false).map(
    (h): JobHandler =>
      h.kind === RENDER_ZONE_JOB
        ? {
            ...h,
            run: (job) => {
              count += 1;
              return h.run(job);
            },
          }
        : h,
  );
  await new Worker(app.runtime.ctx, counted, { pollMs: 10 }).drain();
  return count;
}

for (const dialect of DIALECTS) {
  describe(`zone renders [${dialect}]`, () => {
    test('changes in a row share one render, due CUMULO_DNS_RENDER_DELAY_MS after the first', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { dnsRenderDelayMs: 60_000 } });
      const domain = await createDomain(app);
      let ran = await renders(app);
      for (let i = 1; i <= 20; i++) {
        await addRecord(app, domain.id, { type: 'A', name: `host${i}`, target: `192.0.2.${i}` });
        ran += await renders(app);
      }
      assert.equal(ran, 0, 'no render before the delay, however many changes and worker turns');
      const before = await app.request('GET', `/v4/domains/${domain.id}/zone-file`);
      assert.deepEqual(before.body.zone_file, [], 'not rendered yet');

      app.runtime.ctx.clock.advance(60_000);
      assert.equal(await renders(app), 1, 'one render for the twenty changes');
      const after = await app.request('GET', `/v4/domains/${domain.id}/zone-file`);
      const hosts = after.body.zone_file.filter((l: string) => / IN A 192\.0\.2\./.test(l));
      assert.equal(hosts.length, 20, 'the render holds every change');
      await addRecord(app, domain.id, { type: 'A', name: 'late', target: '192.0.2.99' });
      assert.equal(await renders(app), 0, 'a change after it waits again');
    });
  });
}
