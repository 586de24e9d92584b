import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, DIALECTS, tempDir } from '../helpers/app.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { ROOT_PASS } from '../nodes/helpers.ts';
import { OPERATOR_TOKEN, type OperatorApp, ok, operatorApp } from './helpers.ts';

interface Step {
  method: string;
  url: string | ((earlier: Answer[]) => string);
  body?: unknown;
  admin?: boolean;
}

interface Answer {
  status: number;
  requestId: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are compared whole
  body: any;
}

/** Create a token, create nodes (one labelled by the service), boot, upload, list events: what a test tool does. */
const SEQUENCE: Step[] = [
  { method: 'POST', url: '/v4/profile/tokens', body: { label: 'ci', scopes: '*' } },
  {
    method: 'POST',
    url: '/v4/node/instances',
    body: {
      region: 'us-east',
      type: 'g6-standard-1',
      image: 'node/debian12',
      root_pass: ROOT_PASS,
      label: 'web-1',
      private_ip: true,
    },
  },
  {
    method: 'POST',
    url: '/v4/node/instances',
    body: { region: 'eu-west', type: 'g6-nanode-1', image: 'node/debian12', root_pass: ROOT_PASS },
  },
  { method: 'GET', url: '/v4/node/instances' },
  { method: 'POST', url: (a) => `/v4/node/instances/${a[1]?.body.id}/shutdown` },
  { method: 'GET', url: (a) => `/v4/node/instances/${a[1]?.body.id}` },
  { method: 'POST', url: (a) => `/v4/node/instances/${a[1]?.body.id}/boot` },
  { method: 'POST', url: '/admin/clock/advance', body: { seconds: 3600 }, admin: true },
  { method: 'POST', url: '/v4/images/upload', body: { label: 'golden', region: 'us-east' } },
  { method: 'GET', url: '/v4/account/events' },
  { method: 'GET', url: '/v4/node/instances' },
  { method: 'GET', url: '/v4/profile/tokens' },
];

async function play(app: OperatorApp): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const step of SEQUENCE) {
    const url = typeof step.url === 'string' ? step.url : step.url(answers);
    const send = step.admin ? app.admin : app.request;
    const res = await send(step.method, url, step.body === undefined ? {} : { body: step.body });
    assert.equal(res.status, 200, `${step.method} ${url}: ${JSON.stringify(res.body)}`);
    answers.push({ status: res.status, requestId: res.headers['x-request-id'], body: res.body });
  }
  return answers;
}

for (const dialect of DIALECTS) {
  describe(`CUMULO_SEED [${dialect}]`, () => {
    test('two fresh runs of the same request sequence give identical responses; another seed gives other values', async (t) => {
      const first = await play(await operatorApp(t, dialect, { seed: 42 }));
      const second = await play(await operatorApp(t, dialect, { seed: 42 }));
      assert.deepEqual(second, first);

      const [token, web, unnamed] = first;
      assert.match(token?.body.token, /^[0-9a-f]{64}$/);
      assert.equal(token?.body.created, '2026-01-01T00:00:01', 'the logical clock starts at CUMULO_START_TIME, a step a request');
      assert.match(unnamed?.body.label, /^[a-z]/, 'a generated label');
      assert.ok(web?.body.ipv4.length >= 2, 'public and private addresses');
      const events = first[9]?.body.data as { action: string; status: string }[];
      assert.ok(
        events.some((e) => e.action === 'node_boot' && e.status === 'finished'),
        'due jobs ran before the requests',
      );

      const other = await play(await operatorApp(t, dialect, { seed: 43 }));
      assert.notEqual(other[0]?.body.token, token?.body.token);
      assert.notDeepEqual(other[0]?.requestId, first[0]?.requestId);
    });

    test('after POST /admin/reset a seeded run goes on exactly as after a fresh start', async (t) => {
      const app = await operatorApp(t, dialect, { seed: 42, startTime: '2030-06-01T12:00:00Z' });
      const fresh = await play(app);
      await ok(app.admin('POST', '/admin/reset'));
      assert.deepEqual(await play(app), fresh);
      assert.equal(fresh[0]?.body.created, '2030-06-01T12:00:01');
    });
  });
}

describe('CUMULO_SEED [sqlite, as processes]', () => {
  test('two `cumulo serve` processes with the same seed answer the same', async (t) => {
    const answers: unknown[][] = [];
    for (const _run of [1, 2]) {
      const server = await startServerProcess({
        CUMULO_DATA_DIR: tempDir(t),
        CUMULO_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
        CUMULO_ADMIN_TOKEN: OPERATOR_TOKEN,
        CUMULO_SEED: '1234',
        CUMULO_TIME_SCALE: '0.001',
      });
      t.after(() => server.child.kill('SIGKILL'));
      const call = async (method: string, url: string, body?: unknown) => {
        const res = await fetch(`${server.baseUrl}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${url.startsWith('/admin') ? OPERATOR_TOKEN : ADMIN_TOKEN}`,
            'content-type': 'application/json',
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, requestId: res.headers.get('x-request-id'), body: await res.json() };
      };
      const run = [
        await call('POST', '/v4/profile/tokens', { label: 'ci' }),
        await call('POST', '/v4/node/instances', {
          region: 'us-east',
          type: 'g6-standard-1',
          image: 'node/debian12',
          root_pass: ROOT_PASS,
        }),
        await call('GET', '/v4/node/instances'),
        await call('GET', '/v4/account/events'),
        await call('GET', '/v4/node/instances'),
        await call('GET', '/admin/info'),
      ];
      // The info's uptime and database file differ from process to process.
      const info = run[5]?.body as { uptime_seconds: unknown; database: unknown };
      info.uptime_seconds = null;
      info.database = null;
      answers.push(run);
      server.child.kill('SIGTERM');
      await server.exited;
    }
    assert.deepEqual(answers[1], answers[0]);
    // Each request moves the clock one step and runs what is due: the provisioning starts at the first
    // request after the create and finishes at the next.
    const first = (answers[0] ?? []) as ({ body: { data: { status: string }[] } } | undefined)[];
    const status = (i: number) => first[i]?.body.data[0]?.status;
    assert.equal(status(2), 'provisioning');
    assert.equal(status(4), 'running', 'jobs ran before each request, with no worker in the background');
  });
});
