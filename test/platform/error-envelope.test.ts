import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { publicAccess } from '../../src/http/access.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

for (const dialect of DIALECTS) {
  describe(`failures in the envelope [${dialect}]`, () => {
    test('malformed JSON is a 400 with a reason and changes nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('POST', '/v4/profile/tokens', {
        body: '{"label": "x",',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400);
      assert.match(res.body.errors[0].reason, /not valid JSON/);
      const list = await app.request('GET', '/v4/profile/tokens');
      assert.equal(list.body.results, 1);
    });

    test('a wrong content type is a 415', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('POST', '/v4/profile/tokens', {
        body: 'label=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(res.status, 415);
      assert.match(res.body.errors[0].reason, /Content-Type/);
    });

    test('an oversized body is a 413', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { bodyLimitBytes: 2048 } });
      const res = await app.request('POST', '/v4/profile/tokens', {
        body: JSON.stringify({ label: 'x'.repeat(5000) }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 413);
      assert.ok(res.body.errors[0].reason);
    });

    test('an empty JSON body counts as no body', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('POST', '/v4/profile/tokens', { body: '', headers: { 'content-type': 'application/json' } });
      assert.notEqual(res.status, 500);
      assert.doesNotMatch(JSON.stringify(res.body), /not valid JSON/);
    });

    test('every bad field is reported at once, with its path', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('POST', '/v4/profile/tokens', { body: { label: 5, scopes: ['*'], expiry: 'soon' } });
      assert.equal(res.status, 400);
      const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
      assert.deepEqual(fields, ['expiry', 'label', 'scopes']);
      for (const e of res.body.errors) assert.ok(e.reason.length > 5, e.reason);
    });

    test('an unexpected exception is a 500 without internals', async (t) => {
      const app = await buildTestApp(t, { dialect });
      app.runtime.app?.get('/v4/test-explode', { config: { access: publicAccess } }, async () => {
        throw new Error('secret internals at /srv/db');
      });
      const res = await app.request('GET', '/v4/test-explode');
      assert.equal(res.status, 500);
      assert.equal(res.body.errors.length, 1);
      assert.doesNotMatch(JSON.stringify(res.body), /secret|srv/);
      assert.ok(res.headers['x-request-id']);
    });
  });
}
