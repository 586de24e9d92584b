import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

for (const dialect of DIALECTS) {
  describe(`errors and envelope [${dialect}]`, () => {
    test('unknown route is a 404 in the envelope', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/nope');
      assert.equal(res.status, 404);
      assert.ok(Array.isArray(res.body.errors));
      assert.equal(typeof res.body.errors[0].reason, 'string');
      assert.equal(res.body.errors[0].field, undefined);
    });

    test('wrong method is a 405 with Allow', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('DELETE', '/v4/regions');
      assert.equal(res.status, 405);
      assert.equal(res.headers.allow, 'GET');
      assert.ok(res.body.errors[0].reason.includes('DELETE'));
    });

    test('request id comes back in a header', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/regions', { headers: { 'x-request-id': 'abc123' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-request-id'], 'abc123');
    });

    test('query validation names the parameter', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/regions?page_size=5&page=0');
      assert.equal(res.status, 400);
      const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
      assert.deepEqual(fields, ['page', 'page_size']);
    });
  });
}
