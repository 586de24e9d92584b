import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FixedClock } from '../../src/time/clock.ts';
import { buildTestApp, DIALECTS, LOOPBACK_EGRESS } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { addService, statusOf } from './probe-helpers.ts';
import { startWebServer } from './probe-servers.ts';

for (const dialect of DIALECTS) {
  describe(`probes a change asks for [${dialect}]`, () => {
    test('changes probe at once at most once a minute; later ones wait for the next round', async (t) => {
      const clock = new FixedClock(Date.parse('2026-03-01T12:00:00Z'));
      // Rounds a minute apart on the service clock, as a deployment has them.
      const app = await buildTestApp(t, { dialect, clock, config: { ...LOOPBACK_EGRESS, timeScale: 1 } });
      const web = await startWebServer(t);
      const service = await addService(app, { service_type: 'url', address: web.url, body: 'healthy' });
      await runDueJobs(app);
      assert.equal(web.requests, 1);
      const change = async (body: string) => {
        const res = await app.request('PUT', `/v4/managed/services/${service.id}`, { body: { body } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.status, 'pending');
      };

      clock.advance(1000);
      await change('systems');
      await runDueJobs(app);
      assert.equal(web.requests, 2, 'the first change probes at once');
      assert.equal(await statusOf(app, service.id), 'ok');

      clock.advance(1000);
      await change('all systems');
      await change('all');
      const enabled = await app.request('POST', `/v4/managed/services/${service.id}/enable`);
      assert.equal(enabled.status, 200);
      await runDueJobs(app);
      assert.equal(web.requests, 2, 'changes within the minute do not probe at once');
      assert.equal(await statusOf(app, service.id), 'pending');

      // The next round, a minute after the last probe, probes the settings as they are then.
      clock.advance(58_000);
      await runDueJobs(app);
      assert.equal(web.requests, 2);
      clock.advance(1000);
      await runDueJobs(app);
      assert.equal(web.requests, 3);
      assert.equal(await statusOf(app, service.id), 'ok');
    });
  });
}
