import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { createNode } from '../nodes/helpers.ts';

const ORIGIN = 'https://tool.example.com';

for (const dialect of DIALECTS) {
  describe(`/v4beta serves what /v4 serves [${dialect}]`, () => {
    test('reads, writes and lists answer the same under both', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const path of ['/regions', '/regions/us-east', '/account', '/profile', '/node/types?page=1']) {
        const v4 = await app.request('GET', `/v4${path}`);
        const beta = await app.request('GET', `/v4beta${path}`);
        assert.equal(v4.status, 200, path);
        assert.equal(beta.status, 200, path);
        assert.deepEqual(beta.body, v4.body, path);
      }
      const made = await app.request('POST', '/v4beta/networking/firewalls', {
        body: { label: 'beta-made', rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' } },
      });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const seen = await app.request('GET', `/v4/networking/firewalls/${made.body.id}`);
      assert.equal(seen.body.label, 'beta-made');
      const node = await createNode(app, { label: 'beta-node' });
      const filtered = await app.request('GET', '/v4beta/node/instances/', { headers: { 'x-filter': '{"label":"beta-node"}' } });
      assert.deepEqual(
        filtered.body.data.map((n: { id: number }) => n.id),
        [node.id],
      );
    });

    test('errors, authentication and CORS are the same under both', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const anonymous = await app.request('GET', '/v4beta/profile', { token: null, headers: { origin: ORIGIN } });
      assert.equal(anonymous.status, 401);
      assert.ok(anonymous.body.errors[0].reason);
      assert.equal(anonymous.headers['access-control-allow-origin'], '*');
      const bad = await app.request('POST', '/v4beta/networking/firewalls', { body: { label: 5 } });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, (await app.request('POST', '/v4/networking/firewalls', { body: { label: 5 } })).body);
      const missing = await app.request('GET', '/v4beta/node/instances/999999');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, (await app.request('GET', '/v4/node/instances/999999')).body);
      const preflight = await app.request('OPTIONS', '/v4beta/node/instances', {
        token: null,
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], '*');
      // Only the whole word is the beta base path.
      assert.equal((await app.request('GET', '/v4betas/regions')).status, 404);
    });

    test('the API document lists both base paths in its servers', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const prefix of ['/v4', '/v4beta']) {
        const doc = await app.request('GET', `${prefix}/openapi.json`);
        assert.equal(doc.status, 200);
        assert.deepEqual(
          doc.body.servers.map((s: { url: string }) => s.url),
          ['/v4', '/v4beta'],
        );
      }
    });
  });
}
