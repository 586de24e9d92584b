import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS, LOOPBACK_EGRESS, type TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { addService, openIssues, statusOf } from './probe-helpers.ts';
import { resettingPort, startSelfSignedServer, startTrickleServer, startWebServer } from './probe-servers.ts';

/** What the tenant is told of each service down: its issue's label and its `ticket_create` event's message. */
async function toldDown(app: TestApp): Promise<{ labels: string[]; messages: string[] }> {
  const events = await app.request('GET', '/v4/account/events');
  const messages = (events.body.data as { action: string; message: string | null }[])
    .filter((e) => e.action === 'ticket_create')
    .map((e) => String(e.message))
    .sort();
  return { labels: (await openIssues(app)).map((i) => i.entity.label).sort(), messages };
}

for (const dialect of DIALECTS) {
  describe(`what a probe tells the tenant [${dialect}]`, () => {
    test('down with one short cause, never a library error or the content of an answer', async (t) => {
      const app = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
      const web = await startWebServer(t);
      web.answer = { status: 503, body: 'secret-internal-detail' };
      const secretPage = await startWebServer(t);
      secretPage.answer = { status: 200, body: 'token=abcd1234' };
      const plainPort = new URL(secretPage.url).port;
      await addService(app, { label: 'http-error', service_type: 'url', address: `${web.url}/` });
      await addService(app, { label: 'no-match', service_type: 'url', address: secretPage.url, body: 'token=abce' });
      await addService(app, { label: 'not-tls', service_type: 'url', address: `https://127.0.0.1:${plainPort}/` });
      await addService(app, { label: 'reset', service_type: 'url', address: `http://127.0.0.1:${await resettingPort(t)}/` });
      await addService(app, { label: 'bad-cert', service_type: 'url', address: await startSelfSignedServer(t) });
      await runDueJobs(app);
      const told = await toldDown(app);
      assert.deepEqual(told.labels, [
        'bad-cert is down: certificate not valid',
        'http-error is down: HTTP 503',
        'no-match is down: body not found',
        'not-tls is down: TLS handshake failed',
        'reset is down: connection reset',
      ]);
      assert.deepEqual(told.messages, [
        'HTTP 503',
        'TLS handshake failed',
        'body not found',
        'certificate not valid',
        'connection reset',
      ]);
    });

    test('a whole probe ends within its timeout: a body sent slowly is a timeout, not a body read to its end', async (t) => {
      const app = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
      // 40 bytes, one each 100 ms: read to its end, the answer would be `body not found` after 4 s.
      const trickle = await startTrickleServer(t, 100, 40);
      const slow = await addService(app, { label: 'slow', service_type: 'url', address: trickle, body: 'healthy', timeout: 1 });
      await runDueJobs(app);
      assert.equal(await statusOf(app, slow.id), 'problem');
      assert.deepEqual((await toldDown(app)).labels, ['slow is down: timeout']);
    });
  });
}
