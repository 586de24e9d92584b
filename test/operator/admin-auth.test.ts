import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ADMIN_TOKEN, buildTestApp, DIALECTS } from '../helpers/app.ts';
import { ok, operatorApp } from './helpers.ts';

const ADMIN_CALLS: [string, string][] = [
  ['GET', '/admin/info'],
  ['POST', '/admin/reset'],
  ['GET', '/admin/snapshot'],
  ['POST', '/admin/restore'],
  ['GET', '/admin/transitions'],
  ['PUT', '/admin/transitions/node_boot'],
  ['POST', '/admin/transitions/node_boot/advance'],
  ['POST', '/admin/jobs/1/advance'],
  ['POST', '/admin/clock/advance'],
  ['PUT', '/admin/faults'],
  ['DELETE', '/admin/faults'],
  ['PUT', '/admin/regions/us-east'],
  ['POST', '/admin/nodes/1/maintenance'],
  ['POST', '/admin/nodes/1/power-off'],
  ['PUT', '/admin/nodes/1/ip-allowance'],
  ['GET', '/admin/nodes/1/firewall'],
  ['POST', '/admin/ipv6/ranges'],
  ['POST', '/admin/ipv6/pools'],
  ['DELETE', '/admin/ipv6/2001:db8:1:1::'],
  ['POST', '/admin/managed/credentials/1/reveal'],
  ['POST', '/admin/managed/ssh-keys/1/reveal'],
  ['PUT', '/admin/users/admin/password'],
  ['GET', '/admin/openapi.json'],
];

for (const dialect of DIALECTS) {
  describe(`admin API access [${dialect}]`, () => {
    test('off without CUMULO_ADMIN_TOKEN: every /admin path answers 404 in the envelope', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const [method, url] of ADMIN_CALLS) {
        const res = await app.request(method, url, { body: {} });
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.match(res.body.errors[0].reason, /Not found/);
      }
    });

    test('on: no token, a wrong one or a v4 token is a 401 in the envelope; the admin token passes', async (t) => {
      const app = await operatorApp(t, dialect);
      for (const [method, url] of ADMIN_CALLS) {
        for (const token of [null, 'not-the-admin-token', ADMIN_TOKEN]) {
          const res = await app.request(method, url, { token, body: {} });
          assert.equal(res.status, 401, `${method} ${url} with ${token}`);
          assert.equal(res.body.errors.length, 1);
          assert.match(res.body.errors[0].reason, token === null ? /CUMULO_ADMIN_TOKEN/ : /Invalid admin token/);
        }
      }
      const malformed = await app.request('GET', '/admin/info', { token: null, headers: { authorization: 'Basic abc' } });
      assert.equal(malformed.status, 401);
      await ok(app.admin('GET', '/admin/info'));
      const unknown = await app.admin('GET', '/admin/no-such-thing');
      assert.equal(unknown.status, 404);
    });
  });
}

describe('admin API document', () => {
  test('/admin/openapi.json is a valid OpenAPI 3.1 document of the admin routes; /v4/openapi.json lists none of them', async (t) => {
    const app = await operatorApp(t, 'sqlite');
    const doc = await ok(app.admin('GET', '/admin/openapi.json'));
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    assert.deepEqual(operations, [
      'DELETE /faults',
      'DELETE /ipv6/{range}',
      'GET /clock',
      'GET /faults',
      'GET /hosts',
      'GET /info',
      'GET /nodes/{nodeId}/firewall',
      'GET /nodes/{nodeId}/ports',
      'GET /snapshot',
      'GET /transitions',
      'POST /clock/advance',
      'POST /ipv6/pools',
      'POST /ipv6/ranges',
      'POST /jobs/{jobId}/advance',
      'POST /managed/credentials/{credentialId}/reveal',
      'POST /managed/ssh-keys/{accountId}/reveal',
      'POST /nodes/{nodeId}/maintenance',
      'POST /nodes/{nodeId}/power-off',
      'POST /reset',
      'POST /restore',
      'POST /transitions/{kind}/advance',
      'PUT /faults',
      'PUT /nodes/{nodeId}/ip-allowance',
      'PUT /regions/{regionId}',
      'PUT /transitions',
      'PUT /transitions/{kind}',
      'PUT /users/{username}/password',
    ]);
    assert.deepEqual(doc.servers, [{ url: '/admin' }]);
    const v4 = await app.request('GET', '/v4/openapi.json', { token: null });
    assert.ok(!JSON.stringify(Object.keys(v4.body.paths)).includes('admin'));
    assert.ok((app.runtime.app?.routeTable ?? []).every((r) => r.url.startsWith('/v4/')));
  });
});
