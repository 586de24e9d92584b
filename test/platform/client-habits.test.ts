import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { rawExchange } from '../helpers/raw-http.ts';
import { listen } from '../images/helpers.ts';
import { createEmptyNode, getNode, runningNode } from '../nodes/helpers.ts';
import { OPERATOR_TOKEN, operatorApp } from '../operator/helpers.ts';

/** What HTTP clients put on a POST that has nothing to send. */
const EMPTY_BODY_TYPES = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/octet-stream',
  'multipart/form-data; boundary=xyz',
];

function headersFor(type: string | undefined): Record<string, string> {
  return type === undefined ? {} : { 'content-type': type };
}

interface HttpReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  reusedSocket: boolean;
}

/** One request over a real connection with node:http (`agent` decides about keep-alive). */
function send(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; chunks?: string[]; agent?: http.Agent } = {},
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, base),
      { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...options.headers }, agent: options.agent ?? false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, reusedSocket: req.reusedSocket }));
      },
    );
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

async function backupsEnabled(app: TestApp, id: number): Promise<boolean> {
  return (await getNode(app, id)).backups.enabled;
}

for (const dialect of DIALECTS) {
  describe(`client habits [${dialect}]`, () => {
    test('a bodiless action POST works with any Content-Type, or none', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const type of EMPTY_BODY_TYPES) {
        const node = await createEmptyNode(app);
        const res = await app.request('POST', `/v4/node/instances/${node.id}/backups/enable`, {
          body: '',
          headers: headersFor(type),
        });
        assert.equal(res.status, 200, `${type}: ${JSON.stringify(res.body)}`);
        assert.equal(await backupsEnabled(app, node.id), true, String(type));
      }
    });

    test('`curl -X POST -d ""` shuts a node down; a chunked body of zero bytes counts as none', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await runningNode(app);
      const base = await listen(app);
      const form = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' };
      const shutdown = await send(base, 'POST', `/v4/node/instances/${node.id}/shutdown`, { headers: form });
      assert.equal(shutdown.status, 200, shutdown.body);
      assert.equal((await getNode(app, node.id)).status, 'shutting_down');

      const other = await createEmptyNode(app);
      const chunked = await send(base, 'POST', `/v4/node/instances/${other.id}/backups/enable`, {
        headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' },
        chunks: [''],
      });
      assert.equal(chunked.status, 200, chunked.body);
      assert.equal(await backupsEnabled(app, other.id), true);
    });

    test('no body on an operation that takes one is the empty object: defaults apply, required fields are named', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const type of EMPTY_BODY_TYPES) {
        const token = await app.request('POST', '/v4/profile/tokens', { body: '', headers: headersFor(type) });
        assert.equal(token.status, 200, `${type}: ${JSON.stringify(token.body)}`);
        assert.equal(token.body.scopes, '*');
      }
      const user = await app.request('POST', '/v4/account/users', {
        body: '',
        headers: headersFor('application/x-www-form-urlencoded'),
      });
      assert.equal(user.status, 400);
      const fields = user.body.errors.map((e: { field: string }) => e.field).sort();
      assert.deepEqual(fields, ['email', 'username']);
    });

    test('a body that is there but not JSON stays a 415, malformed JSON a 400, and neither changes anything', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const enable = `/v4/node/instances/${node.id}/backups/enable`;
      for (const [type, body] of [
        ['application/x-www-form-urlencoded', 'a=1'],
        ['text/plain', 'hello'],
        ['application/octet-stream', 'binary'],
        ['application/xml', '<a/>'],
      ] as const) {
        const res = await app.request('POST', enable, { body, headers: { 'content-type': type } });
        assert.equal(res.status, 415, type);
        assert.match(res.body.errors[0].reason, /Content-Type/);
      }
      const bad = await app.request('POST', enable, { body: '{"a":', headers: { 'content-type': 'application/json' } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.errors[0].reason, /not valid JSON/);
      assert.equal(await backupsEnabled(app, node.id), false);
      const tokens = await app.request('POST', '/v4/profile/tokens', {
        body: 'label=x',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(tokens.status, 415);
      assert.equal((await app.request('GET', '/v4/profile/tokens')).body.results, 1);
    });

    test('an admin operation takes a bodiless POST with any Content-Type', async (t) => {
      const app = await operatorApp(t, dialect);
      for (const type of EMPTY_BODY_TYPES) {
        const res = await app.request('POST', '/admin/transitions/node_boot/advance', {
          token: OPERATOR_TOKEN,
          body: '',
          headers: headersFor(type),
        });
        assert.equal(res.status, 200, `${type}: ${JSON.stringify(res.body)}`);
      }
    });

    test('trailing and doubled slashes reach the same operation', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const plain = await app.request('GET', `/v4/node/instances/${node.id}`);
      for (const url of [`/v4/node/instances/${node.id}/`, `/v4//node/instances/${node.id}`]) {
        const res = await app.request('GET', url);
        assert.equal(res.status, 200, url);
        assert.deepEqual(res.body, plain.body);
      }
      assert.equal((await app.request('GET', '/v4/regions/')).body.results, 14);
      const created = await app.request('POST', '/v4/profile/tokens/', { body: { label: 'slash' } });
      assert.equal(created.status, 200);
      assert.equal(created.body.label, 'slash');
    });

    test('unknown query parameters are ignored; a repeated known one is a 400 naming it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const plain = await app.request('GET', '/v4/regions?page_size=25');
      const unknown = await app.request('GET', '/v4/regions?page_size=25&utm_source=x&utm_source=y&_=1700000000');
      assert.equal(unknown.status, 200);
      assert.deepEqual(unknown.body, plain.body);
      for (const query of ['page=1&page=2', 'page_size=25&page_size=50', 'page=1&page=1']) {
        const res = await app.request('GET', `/v4/regions?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.errors[0].field, query.slice(0, query.indexOf('=')));
      }
    });

    test('every Accept gets JSON, answers and errors alike', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const accepts = [
        undefined,
        '*/*',
        'application/json',
        'text/html',
        'text/html,application/xhtml+xml;q=0.9',
        'application/xml',
      ];
      for (const accept of accepts) {
        const headers: Record<string, string> = accept === undefined ? {} : { accept };
        const ok = await app.request('GET', '/v4/regions', { headers });
        assert.equal(ok.status, 200, String(accept));
        assert.match(String(ok.headers['content-type']), /^application\/json/);
        assert.equal(ok.body.results, 14);
        const missing = await app.request('GET', '/v4/node/instances/999999', { headers });
        assert.equal(missing.status, 404);
        assert.match(String(missing.headers['content-type']), /^application\/json/);
        assert.ok(Array.isArray(missing.body.errors));
      }
    });

    test('HTTP/1.0 gets a whole answer and the connection closed; with keep-alive two requests share it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const base = await listen(app);
      const auth = `Authorization: Bearer ${ADMIN_TOKEN}\r\n`;
      const get = (extra = '') => `GET /v4/regions HTTP/1.0\r\nHost: localhost\r\n${auth}${extra}\r\n`;
      const [one, ...none] = await rawExchange(base, get());
      assert.ok(one);
      assert.equal(none.length, 0);
      assert.equal(one.status, 200);
      assert.equal(JSON.parse(one.body).results, 14);
      assert.notEqual(one.headers.connection, 'keep-alive');

      // Two requests on one HTTP/1.0 connection: the first asks to keep it open.
      const answers = await rawExchange(base, get('Connection: keep-alive\r\n') + get());
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200],
      );
      assert.equal(answers[0]?.headers.connection, 'keep-alive');
      for (const a of answers) assert.equal(JSON.parse(a.body).results, 14);

      // A bodiless POST from an HTTP/1.0 client.
      const node = await createEmptyNode(app);
      const [post] = await rawExchange(
        base,
        `POST /v4/node/instances/${node.id}/backups/enable HTTP/1.0\r\nHost: localhost\r\n${auth}` +
          'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n\r\n',
      );
      assert.equal(post?.status, 200, post?.body);
      assert.equal(await backupsEnabled(app, node.id), true);
    });

    test('HTTP/1.1 keep-alive: a client reuses its connection across answers and refusals', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const base = await listen(app);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      t.after(() => agent.destroy());
      const first = await send(base, 'GET', '/v4/regions', { agent });
      assert.equal(first.status, 200);
      assert.equal(first.reusedSocket, false);
      const missing = await send(base, 'GET', '/v4/node/instances/999999', { agent });
      assert.equal(missing.status, 404);
      assert.equal(missing.reusedSocket, true);
      const invalid = await send(base, 'POST', '/v4/profile/tokens', {
        agent,
        headers: { 'content-type': 'application/json' },
        chunks: ['{"label": 5}'],
      });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.reusedSocket, true);
      // A refused body type closes the connection (said in the answer); the client goes on on a new one.
      const refused = await send(base, 'POST', '/v4/profile/tokens', {
        agent,
        headers: { 'content-type': 'text/plain' },
        chunks: ['hello'],
      });
      assert.equal(refused.status, 415);
      assert.equal(refused.headers.connection, 'close');
      const again = await send(base, 'GET', '/v4/profile', { agent });
      assert.equal(again.status, 200);
      assert.equal(JSON.parse(again.body).username, 'admin');
      const reused = await send(base, 'GET', '/v4/profile', { agent });
      assert.equal(reused.reusedSocket, true);
    });
  });
}
