import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jobHandlers } from '../../src/job-handlers.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { buildTestApp, DIALECTS, LOOPBACK_EGRESS, type TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { addService, openIssues, statusOf } from './probe-helpers.ts';
import { closedPort, silentPort, startTcpServer, startWebServer } from './probe-servers.ts';

/** The next round of probes: one interval on, then every due job. */
async function nextRound(app: TestApp): Promise<void> {
  const { ctx } = app.runtime;
  ctx.clock.advance(ctx.config.managedProbeIntervalSec * 1000);
  await runDueJobs(app);
}

async function ticketEvents(app: TestApp) {
  const res = await app.request('GET', '/v4/account/events');
  return (
    res.body.data as {
      action: string;
      entity: { id: number; type: string };
      secondary_entity: { id: number; type: string } | null;
      message: string;
    }[]
  )
    .filter((e) => e.entity?.type === 'ticket')
    .reverse();
}

for (const dialect of DIALECTS) {
  describe(`managed service probes [${dialect}]`, () => {
    test('url: pending → ok; an error status opens one issue with an event; recovery closes it', async (t) => {
      const app = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
      const web = await startWebServer(t);
      const service = await addService(app, { service_type: 'url', address: `${web.url}/health` });
      await runDueJobs(app);
      assert.equal(await statusOf(app, service.id), 'ok');
      assert.deepEqual(await openIssues(app), []);

      web.answer = { status: 503, body: 'down for maintenance' };
      await nextRound(app);
      assert.equal(await statusOf(app, service.id), 'problem');
      const [issue, ...more] = await openIssues(app);
      assert.ok(issue);
      assert.deepEqual(more, []);
      assert.deepEqual(issue.services, [service.id]);
      assert.deepEqual(issue.entity, {
        id: issue.entity.id,
        label: 'watched is down: HTTP 503',
        type: 'ticket',
        url: `/support/tickets/${issue.entity.id}`,
      });
      assert.deepEqual((await app.request('GET', `/v4/managed/issues/${issue.id}`)).body, issue);

      // Still down: the issue stays the one issue.
      await nextRound(app);
      assert.deepEqual(
        (await openIssues(app)).map((i) => i.id),
        [issue.id],
      );

      web.answer = { status: 200, body: 'fine again' };
      await nextRound(app);
      assert.equal(await statusOf(app, service.id), 'ok');
      assert.deepEqual(await openIssues(app), [], 'a recovered service has no open issue');
      assert.deepEqual(
        (await app.request('GET', `/v4/managed/issues/${issue.id}`)).body,
        issue,
        'a closed issue can still be viewed',
      );

      const events = await ticketEvents(app);
      assert.deepEqual(
        events.map((e) => [e.action, e.entity.id, e.secondary_entity?.type, e.secondary_entity?.id]),
        [
          ['ticket_create', issue.entity.id, 'managed_service', service.id],
          ['ticket_update', issue.entity.id, 'managed_service', service.id],
        ],
      );
      assert.equal(events[0]?.message, 'HTTP 503');
      assert.ok(web.requests >= 4, 'each round asked the server');
    });

    test('url: the expected body must be in the answer; a redirect counts as up and is not followed', async (t) => {
      const app = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
      const web = await startWebServer(t);
      const service = await addService(app, { service_type: 'url', address: web.url, body: 'healthy' });
      await runDueJobs(app);
      assert.equal(await statusOf(app, service.id), 'ok');

      web.answer = { status: 200, body: 'degraded' };
      await nextRound(app);
      assert.equal(await statusOf(app, service.id), 'problem');
      assert.deepEqual(
        (await openIssues(app)).map((i) => i.entity.label),
        ['watched is down: body not found'],
      );

      const before = web.requests;
      web.answer = { status: 302, body: 'healthy, moved', headers: { location: `${web.url}/elsewhere` } };
      await nextRound(app);
      assert.equal(await statusOf(app, service.id), 'ok');
      assert.equal(web.requests, before + 1, 'the redirect was not followed');
    });

    test('url: no answer within the timeout, or nothing listening, is a problem', async (t) => {
      const app = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
      const silent = await addService(app, {
        service_type: 'url',
        address: `http://127.0.0.1:${await silentPort(t)}/`,
        timeout: 1,
      });
      const refused = await addService(app, {
        label: 'refused',
        service_type: 'url',
        address: `http://127.0.0.1:${await closedPort()}/`,
      });
      const started = Date.now();
      await runDueJobs(app);
      assert.ok(Date.now() - started >= 900, 'the probe waited for its timeout');
      assert.equal(await statusOf(app, silent.id), 'problem');
      assert.equal(await statusOf(app, refused.id), 'problem');
      const labels = (await openIssues(app)).map((i) => i.entity.label).sort();
      assert.deepEqual(labels, ['refused is down: connection refused', 'watched is down: timeout']);
    });

    test('tcp: up while the port accepts, a problem while it refuses', async (t) => {
      const app = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
      const tcp = await startTcpServer(t);
      const service = await addService(app, { service_type: 'tcp', address: `127.0.0.1:${tcp.port}` });
      await runDueJobs(app);
      assert.equal(await statusOf(app, service.id), 'ok');
      await tcp.close();
      await nextRound(app);
      assert.equal(await statusOf(app, service.id), 'problem');
      assert.equal((await openIssues(app)).length, 1);
      await tcp.listen();
      await nextRound(app);
      assert.equal(await statusOf(app, service.id), 'ok');
      assert.deepEqual(await openIssues(app), []);
    });

    test('disable and delete close the open issue and stop the probes; enable probes again', async (t) => {
      const app = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
      const port = await closedPort();
      const a = await addService(app, { service_type: 'tcp', address: `127.0.0.1:${port}` });
      const b = await addService(app, { label: 'other', service_type: 'tcp', address: `127.0.0.1:${port}` });
      await runDueJobs(app);
      assert.equal((await openIssues(app)).length, 2);

      assert.equal((await app.request('POST', `/v4/managed/services/${a.id}/disable`)).body.status, 'disabled');
      assert.equal((await app.request('DELETE', `/v4/managed/services/${b.id}`)).status, 200);
      assert.deepEqual(await openIssues(app), []);
      await nextRound(app);
      assert.equal(await statusOf(app, a.id), 'disabled', 'no probe of a disabled service');
      const probes = await app.runtime.ctx.db.selectFrom('jobs').select('id').where('kind', '=', 'managed.probe').execute();
      assert.deepEqual(probes, [], 'the probe chains ended');
      assert.deepEqual((await ticketEvents(app)).map((e) => [e.action, e.message]).slice(2), [
        ['ticket_update', 'monitoring of the service was disabled'],
        ['ticket_update', 'the service was deleted'],
      ]);

      const on = await app.request('POST', `/v4/managed/services/${a.id}/enable`);
      assert.equal(on.body.status, 'pending');
      await runDueJobs(app);
      assert.equal(await statusOf(app, a.id), 'problem');
      assert.equal((await openIssues(app)).length, 1, 'a new issue for the service still down');
    });

    test('a probe of settings changed while it ran is not applied; the new address is probed', async (t) => {
      // The next round a day later (86 s at the tests' time scale): the new address's one probe is counted alone.
      const app = await buildTestApp(t, { dialect, config: { ...LOOPBACK_EGRESS, managedProbeIntervalSec: 86_400 } });
      const slow = await startWebServer(t);
      const good = await startWebServer(t);
      slow.answer = { status: 500, body: 'broken' };
      let release: () => void = () => {};
      slow.hold = new Promise((resolve) => {
        release = resolve;
      });
      const service = await addService(app, { service_type: 'url', address: slow.url });
      const probing = runDueJobs(app);
      while (slow.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
      const moved = await app.request('PUT', `/v4/managed/services/${service.id}`, { body: { address: good.url } });
      assert.equal(moved.status, 200, 'the API answers while a probe waits');
      release();
      await probing;
      assert.equal(await statusOf(app, service.id), 'ok', 'the stale failure was dropped and the new address probed');
      assert.deepEqual(await openIssues(app), []);
      assert.equal(good.requests, 1);
    });

    test('a running worker probes many services at once, up to its limit', async (t) => {
      const app = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
      const web = await startWebServer(t);
      let release: () => void = () => {};
      web.hold = new Promise((resolve) => {
        release = resolve;
      });
      const ids: number[] = [];
      for (let i = 0; i < 6; i++)
        ids.push((await addService(app, { label: `svc-${i}`, service_type: 'url', address: web.url })).id);
      // One account's services: as many at once as the limit per concurrency key allows.
      const worker = new Worker(app.runtime.ctx, jobHandlers(false), { pollMs: 10, parallel: 4, parallelPerKey: 4 });
      worker.start();
      // Stopped here, not in an after hook: those of the app (dropping its database) run first.
      try {
        for (let i = 0; i < 500 && web.inFlight < 4; i++) await new Promise((r) => setTimeout(r, 10));
        await new Promise((r) => setTimeout(r, 50));
        assert.equal(web.inFlight, 4, 'four probes wait at once, no more');
        release();
        for (let i = 0; i < 500; i++) {
          const statuses = await Promise.all(ids.map((id) => statusOf(app, id)));
          if (statuses.every((s) => s === 'ok')) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        assert.deepEqual(
          await Promise.all(ids.map((id) => statusOf(app, id))),
          ids.map(() => 'ok'),
        );
        assert.equal(web.mostInFlight, 4);
      } finally {
        release();
        await worker.stop();
      }
    });
  });
}
