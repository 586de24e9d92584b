import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { ADMIN_TOKEN, buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { parseResponses, type RawResponse, rawExchange } from '../helpers/raw-http.ts';
import { listen } from '../images/helpers.ts';

/** The standard envelope, and nothing of the request echoed back. */
function assertEnvelope(res: RawResponse, status: number, notEchoed: string) {
  assert.equal(res.status, status, res.body);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  const body = JSON.parse(res.body);
  assert.deepEqual(Object.keys(body), ['errors']);
  assert.equal(body.errors.length, 1);
  assert.equal(typeof body.errors[0].reason, 'string');
  assert.ok(!res.body.includes(notEchoed), `the answer echoes the request: ${res.body}`);
}

async function tokenCount(app: TestApp): Promise<number> {
  return (await app.request('GET', '/v4/profile/tokens')).body.results;
}

for (const dialect of DIALECTS) {
  describe(`errors before any route runs, in the envelope [${dialect}]`, () => {
    test('a path parameter over 256 characters is a 414 in the envelope, without the URL', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const long = 'x'.repeat(300);
      for (const url of [`/v4/account/users/${long}`, `/v4/node/instances/${'1'.repeat(300)}`]) {
        const res = await app.request('DELETE', url);
        assert.equal(res.status, 414, url);
        assert.deepEqual(Object.keys(res.body), ['errors']);
        assert.match(res.body.errors[0].reason, /256/);
        assert.ok(!JSON.stringify(res.body).includes(long.slice(0, 50)) && !JSON.stringify(res.body).includes('1111111111'));
        assert.ok(res.headers['x-request-id']);
      }
      // Anonymous too: the router refuses it before authentication, and says nothing about any object.
      const anonymous = await app.request('GET', `/v4/account/users/${long}`, { token: null });
      assert.equal(anonymous.status, 414);
      assert.deepEqual(Object.keys(anonymous.body), ['errors']);
    });

    test('a path whose %-escapes do not decode is a 400 in the envelope, without the URL', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/account/users/bad%E0%A4%A');
      assert.equal(res.status, 400);
      assert.deepEqual(Object.keys(res.body), ['errors']);
      assert.ok(!JSON.stringify(res.body).includes('%E0'), JSON.stringify(res.body));
    });

    test('headers over the limit are a 431 in the envelope on a real connection', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const base = await listen(app);
      const huge = 'y'.repeat(20 * 1024);
      const [res, ...more] = await rawExchange(base, `GET /v4/regions HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${huge}\r\n\r\n`);
      assert.ok(res);
      assert.equal(more.length, 0);
      assertEnvelope(res, 431, 'yyyyyyyy');
      assert.equal(res.headers.connection, 'close');
    });

    test('malformed HTTP is a 400 in the envelope on a real connection, and changes nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const base = await listen(app);
      const before = await tokenCount(app);
      const requests = [
        // A method no parser knows.
        'FROB /v4/profile/tokens HTTP/1.1\r\nHost: localhost\r\n\r\n',
        // A header line without a colon.
        'POST /v4/profile/tokens HTTP/1.1\r\nHost: localhost\r\nthis is not a header\r\nContent-Length: 2\r\n\r\n{}',
        // A request line that is not one.
        'hello there\r\n\r\n',
        // A Content-Length that is not a number.
        'POST /v4/profile/tokens HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: lots\r\n\r\n{}',
      ];
      for (const request of requests) {
        const [res, ...more] = await rawExchange(base, request);
        assert.ok(res, request);
        assert.equal(more.length, 0);
        assertEnvelope(res, 400, 'profile/tokens');
      }
      assert.equal(await tokenCount(app), before);
    });

    test('a request that arrives once the server is closing is a 503 in the envelope', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const url = new URL(await listen(app));
      // A request whose headers are under way when the server begins to close is still read.
      const socket = net.connect(Number(url.port), url.hostname);
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      const ended = new Promise((resolve) => socket.on('close', resolve));
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET /v4/account HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = app.runtime.app?.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.write('\r\n');
      await ended;
      await closed;
      const [answer] = parseResponses(Buffer.concat(chunks));
      assert.ok(answer, 'the request is answered');
      assertEnvelope(answer, 503, '/v4/account');
      assert.match(JSON.parse(answer.body).errors[0].reason, /shutting down/);
    });
  });
}
