import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import { newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';

const CALLBACK = 'https://app.example/oauth/callback';

async function register(app: TestApp, body: Record<string, unknown>, token?: string) {
  const res = await app.request('POST', '/v4/account/oauth-clients', { body, ...(token ? { token } : {}) });
  assert.equal(res.status, 200, `register ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
  return res.body;
}

async function storedHash(app: TestApp, id: string): Promise<string | null> {
  const row = await app.runtime.ctx.db
    .selectFrom('oauth_clients')
    .select('secret_hash')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.secret_hash;
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

for (const dialect of DIALECTS) {
  describe(`OAuth clients [${dialect}]`, () => {
    test('a confidential client: its secret shown once, kept only as a hash, replaced by reset-secret', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const client = await register(app, { label: 'My tool', redirect_uri: CALLBACK });
      assert.match(client.id, /^[0-9a-f]{20}$/);
      assert.match(client.secret, /^[0-9a-f]{64}$/);
      assert.deepEqual(
        { ...client, id: undefined, secret: undefined },
        {
          id: undefined,
          secret: undefined,
          label: 'My tool',
          redirect_uri: CALLBACK,
          public: false,
          status: 'active',
          thumbnail_url: null,
        },
      );
      assert.equal(await storedHash(app, client.id), sha256(client.secret), 'the hash, not the secret');

      const read = await app.request('GET', `/v4/account/oauth-clients/${client.id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, { ...client, secret: '<REDACTED>' });
      const listed = await app.request('GET', '/v4/account/oauth-clients');
      assert.deepEqual(listed.body.data, [{ ...client, secret: '<REDACTED>' }]);

      const reset = await app.request('POST', `/v4/account/oauth-clients/${client.id}/reset-secret`, { body: {} });
      assert.equal(reset.status, 200, JSON.stringify(reset.body));
      assert.match(reset.body.secret, /^[0-9a-f]{64}$/);
      assert.notEqual(reset.body.secret, client.secret);
      assert.equal(await storedHash(app, client.id), sha256(reset.body.secret), 'the old secret is gone at once');
    });

    test('a public client has no secret; made confidential it gets one only through reset-secret', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const client = await register(app, { label: 'Browser app', redirect_uri: 'http://127.0.0.1:5173/cb', public: true });
      assert.deepEqual([client.public, client.secret], [true, '']);
      assert.equal(await storedHash(app, client.id), null);
      const refused = await app.request('POST', `/v4/account/oauth-clients/${client.id}/reset-secret`);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.errors[0].field, 'public');

      const confidential = await app.request('PUT', `/v4/account/oauth-clients/${client.id}`, { body: { public: false } });
      assert.equal(confidential.status, 200, JSON.stringify(confidential.body));
      assert.deepEqual([confidential.body.public, confidential.body.secret], [false, '<REDACTED>']);
      assert.equal(await storedHash(app, client.id), null, 'no secret until one is made');
      const made = await app.request('POST', `/v4/account/oauth-clients/${client.id}/reset-secret`);
      assert.equal(made.status, 200);
      assert.equal(await storedHash(app, client.id), sha256(made.body.secret));

      const back = await app.request('PUT', `/v4/account/oauth-clients/${client.id}`, { body: { public: true } });
      assert.equal(back.body.public, true);
      assert.equal(await storedHash(app, client.id), null, 'a client made public loses its secret');
    });

    test('redirect_uri: https, or http to a loopback address; no fragment, no credentials; a refusal makes nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const good of [
        'https://app.example/cb?x=1',
        'http://localhost:8080/cb',
        'http://127.0.0.1/cb',
        'http://[::1]:9000/',
      ]) {
        assert.equal((await register(app, { label: 'ok', redirect_uri: good })).redirect_uri, good);
      }
      for (const bad of [
        'not a url',
        '/relative/cb',
        'http://app.example/cb',
        'ftp://app.example/',
        'https://app.example/cb#x',
        'https://u:p@app.example/',
      ]) {
        const res = await app.request('POST', '/v4/account/oauth-clients', { body: { label: 'bad', redirect_uri: bad } });
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.errors[0].field, 'redirect_uri', bad);
      }
      const client = await register(app, { label: 'moving', redirect_uri: CALLBACK });
      const moved = await app.request('PUT', `/v4/account/oauth-clients/${client.id}`, {
        body: { redirect_uri: 'http://app.example/' },
      });
      assert.equal(moved.status, 400);
      const listed = await app.request('GET', '/v4/account/oauth-clients');
      assert.equal(listed.body.results, 5, 'only the accepted ones');
      assert.equal((await app.request('GET', `/v4/account/oauth-clients/${client.id}`)).body.redirect_uri, CALLBACK);
    });

    test("label filter, update, delete; another account's client is not found", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await register(app, { label: 'alpha', redirect_uri: CALLBACK });
      const b = await register(app, { label: 'beta', redirect_uri: CALLBACK, public: true });
      const filtered = await app.request('GET', '/v4/account/oauth-clients', { headers: { 'x-filter': '{"public": true}' } });
      assert.deepEqual(
        filtered.body.data.map((c: { id: string }) => c.id),
        [b.id],
      );
      const byLabel = await app.request('GET', '/v4/account/oauth-clients', { headers: { 'x-filter': '{"label": "alpha"}' } });
      assert.deepEqual(
        byLabel.body.data.map((c: { id: string }) => c.id),
        [a.id],
      );
      const renamed = await app.request('PUT', `/v4/account/oauth-clients/${a.id}`, { body: { label: 'alpha 2' } });
      assert.deepEqual([renamed.body.label, renamed.body.redirect_uri], ['alpha 2', CALLBACK]);

      const other = await newAccount(app);
      for (const [method, path] of [
        ['GET', `/v4/account/oauth-clients/${a.id}`],
        ['PUT', `/v4/account/oauth-clients/${a.id}`],
        ['DELETE', `/v4/account/oauth-clients/${a.id}`],
        ['POST', `/v4/account/oauth-clients/${a.id}/reset-secret`],
      ] as const) {
        const res = await app.request(method, path, { token: other.token, body: method === 'PUT' ? { label: 'x' } : undefined });
        assert.equal(res.status, 404, `${method} ${path} from another account`);
      }
      assert.equal((await app.request('GET', '/v4/account/oauth-clients', { token: other.token })).body.results, 0);

      assert.equal((await app.request('DELETE', `/v4/account/oauth-clients/${a.id}`)).status, 200);
      assert.equal((await app.request('GET', `/v4/account/oauth-clients/${a.id}`)).status, 404);
      assert.equal((await app.request('GET', '/v4/account/oauth-clients/not-a-client-id')).status, 404);
    });

    test('each change is an event naming the client by its URL, never holding the secret', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const client = await register(app, { label: 'Evented', redirect_uri: CALLBACK });
      await app.request('PUT', `/v4/account/oauth-clients/${client.id}`, { body: { label: 'Evented 2' } });
      const reset = await app.request('POST', `/v4/account/oauth-clients/${client.id}/reset-secret`);
      await app.request('DELETE', `/v4/account/oauth-clients/${client.id}`);
      const events = await app.request('GET', '/v4/account/events', {
        headers: { 'x-filter': JSON.stringify({ 'entity.type': 'oauth_client', '+order_by': 'id', '+order': 'asc' }) },
      });
      assert.deepEqual(
        events.body.data.map((e: { action: string; entity: unknown; username: string }) => [e.action, e.entity, e.username]),
        [
          ['oauth_client_create', 'Evented'],
          ['oauth_client_update', 'Evented 2'],
          ['oauth_client_secret_reset', 'Evented 2'],
          ['oauth_client_delete', 'Evented 2'],
        ].map(([action, label]) => [
          action,
          { id: 0, label, type: 'oauth_client', url: `/v4/account/oauth-clients/${client.id}` },
          'admin',
        ]),
      );
      const text = JSON.stringify(events.body);
      assert.ok(!text.includes(client.secret) && !text.includes(reset.body.secret), 'no secret in an event');
    });
  });
}
