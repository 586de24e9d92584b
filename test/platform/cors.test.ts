import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { OPERATOR_TOKEN, operatorApp } from '../operator/helpers.ts';

const ORIGIN = 'https://tool.example.com';

function preflight(method: string, headers = 'authorization, content-type, x-filter') {
  return {
    token: null,
    headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': headers },
  };
}

test('CUMULO_CORS_ORIGINS: * by default, a list of origins, or off', () => {
  assert.equal(loadConfig({}).corsOrigins, '*');
  assert.deepEqual(loadConfig({ CUMULO_CORS_ORIGINS: 'https://a.example, http://localhost:3000/' }).corsOrigins, [
    'https://a.example',
    'http://localhost:3000',
  ]);
  assert.deepEqual(loadConfig({ CUMULO_CORS_ORIGINS: 'off' }).corsOrigins, []);
  assert.throws(() => loadConfig({ CUMULO_CORS_ORIGINS: 'a.example/path' }), ConfigError);
});

for (const dialect of DIALECTS) {
  describe(`CORS for browser clients [${dialect}]`, () => {
    test('a preflight is answered without a token, for any v4 path and method', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const [method, url] of [
        ['POST', '/v4/node/instances'],
        ['DELETE', '/v4/node/instances/1'],
        ['PUT', '/v4/profile'],
        ['GET', '/v4/account/events?page=2'],
      ] as const) {
        const res = await app.request('OPTIONS', url, preflight(method));
        assert.equal(res.status, 204, `${method} ${url}: ${JSON.stringify(res.body)}`);
        assert.equal(res.headers['access-control-allow-origin'], '*');
        assert.match(String(res.headers['access-control-allow-methods']), new RegExp(`\\b${method}\\b`));
        assert.match(String(res.headers['access-control-allow-headers']), /authorization/i);
        assert.match(String(res.headers['access-control-allow-headers']), /x-filter/i);
        assert.equal(res.headers['access-control-allow-credentials'], undefined);
        assert.ok(Number(res.headers['access-control-max-age']) > 0);
      }
      // Nothing happened on the way: no node was made.
      assert.equal((await app.request('GET', '/v4/node/instances')).body.results, 0);
    });

    test('answers and refusals carry the headers and expose the request id', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const ok = await app.request('GET', '/v4/profile', { headers: { origin: ORIGIN } });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers['access-control-allow-origin'], '*');
      assert.match(String(ok.headers['access-control-expose-headers']), /x-request-id/);
      assert.equal(ok.headers['access-control-allow-credentials'], undefined);
      const anonymous = await app.request('GET', '/v4/profile', { token: null, headers: { origin: ORIGIN } });
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers['access-control-allow-origin'], '*');
      const bad = await app.request('POST', '/v4/profile/tokens', { headers: { origin: ORIGIN }, body: { label: 5 } });
      assert.equal(bad.status, 400);
      assert.equal(bad.headers['access-control-allow-origin'], '*');
    });

    test('configured origins: only those are allowed, each named back', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { corsOrigins: [ORIGIN, 'http://localhost:3000'] } });
      const allowed = await app.request('OPTIONS', '/v4/regions', preflight('GET'));
      assert.equal(allowed.status, 204);
      assert.equal(allowed.headers['access-control-allow-origin'], ORIGIN);
      assert.match(String(allowed.headers.vary), /origin/i);
      const get = await app.request('GET', '/v4/regions', { headers: { origin: 'http://localhost:3000' } });
      assert.equal(get.headers['access-control-allow-origin'], 'http://localhost:3000');
      const other = await app.request('GET', '/v4/regions', { headers: { origin: 'https://evil.example' } });
      assert.equal(other.status, 200);
      assert.equal(other.headers['access-control-allow-origin'], undefined);
    });

    test('off: no CORS headers, and OPTIONS is not a method of the API', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { corsOrigins: [] } });
      const res = await app.request('OPTIONS', '/v4/regions', preflight('GET'));
      assert.equal(res.status, 405);
      assert.ok(Array.isArray(res.body.errors));
      const get = await app.request('GET', '/v4/regions', { headers: { origin: ORIGIN } });
      assert.equal(get.headers['access-control-allow-origin'], undefined);
    });

    test('the admin API sends no CORS headers', async (t) => {
      const app = await operatorApp(t, dialect);
      const res = await app.request('GET', '/admin/info', { token: OPERATOR_TOKEN, headers: { origin: ORIGIN } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      const options = await app.request('OPTIONS', '/admin/info', preflight('GET'));
      assert.notEqual(options.status, 204);
      assert.equal(options.headers['access-control-allow-origin'], undefined);
    });
  });
}
