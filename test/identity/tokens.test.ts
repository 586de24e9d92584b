import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import * as bootstrapTokenPrefixes from '../../src/db/migrations/0005-bootstrap-token-prefixes.ts';
import type { MigrationDb } from '../../src/db/migrations/schema-helpers.ts';
import { ensureBootstrap } from '../../src/domain/account/bootstrap.ts';
import { toTimestamp } from '../../src/time/timestamp.ts';
import { admin, newAccount, newUser, tokenFor } from '../helpers/accounts.ts';
import { ADMIN_TOKEN, buildTestApp, DIALECTS } from '../helpers/app.ts';
import { eventsOf } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`personal access tokens [${dialect}]`, () => {
    test('create shows the whole value once; list and view show only its prefix', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const created = await app.request('POST', '/v4/profile/tokens', {
        body: { label: 'ci', scopes: 'nodes:read_write,events:read_only' },
      });
      assert.equal(created.status, 200);
      assert.match(created.body.token, /^[0-9a-f]{64}$/);
      assert.equal(created.body.label, 'ci');
      assert.equal(created.body.scopes, 'events:read_only nodes:read_write');
      // Made without an expiry, it never expires, and shows the date clients take for never.
      assert.equal(created.body.expiry, '2999-12-12T05:00:00');
      assert.match(created.body.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);

      const view = await app.request('GET', `/v4/profile/tokens/${created.body.id}`);
      assert.equal(view.status, 200);
      assert.equal(view.body.token, created.body.token.slice(0, 16));
      assert.deepEqual({ ...view.body, token: created.body.token }, created.body);

      const list = await app.request('GET', '/v4/profile/tokens');
      assert.equal(list.status, 200);
      assert.equal(list.body.results, 2); // the bootstrap token and the new one
      assert.deepEqual(
        list.body.data.map((item: { token: string }) => item.token),
        [ADMIN_TOKEN.slice(0, ADMIN_TOKEN.length - 32), created.body.token.slice(0, 16)],
      );

      const works = await app.request('GET', '/v4/profile', { token: created.body.token });
      assert.equal(works.status, 200);
      assert.equal(works.body.username, 'admin');
    });

    test('a listed token never shows so much of itself that fewer than 32 characters (128 bits) stay hidden', async (t) => {
      for (const bootstrap of [`${'a'.repeat(31)}b`, `${'c'.repeat(39)}d`, `${'e'.repeat(47)}f`, `${'0'.repeat(127)}1`]) {
        const app = await buildTestApp(t, { dialect, config: { bootstrapToken: bootstrap } });
        // A read-only token of the same user lists every token of it, the `*` bootstrap one too.
        const reader = await tokenFor(app, await admin(app), { scopes: 'account:read_only' });
        const list = await app.request('GET', '/v4/profile/tokens', { token: reader });
        assert.equal(list.status, 200);
        const shown = list.body.data.find((item: { label: string }) => item.label === 'bootstrap').token;
        assert.equal(shown, bootstrap.slice(0, Math.min(16, bootstrap.length - 32)), `a ${bootstrap.length}-character token`);
        assert.ok(bootstrap.length - shown.length >= 32);
        for (const item of list.body.data) assert.ok(item.token.length <= 16);
      }
    });

    test('a bootstrap token shorter than 32 characters is refused at start, naming CUMULO_BOOTSTRAP_TOKEN', async (t) => {
      for (const short of ['0123456789abcdef', 'ci-token-0123456789abcdef', 'x'.repeat(31)]) {
        await assert.rejects(buildTestApp(t, { dialect, config: { bootstrapToken: short } }), (err: Error) => {
          assert.ok(err instanceof ConfigError);
          assert.match(err.message, /CUMULO_BOOTSTRAP_TOKEN must not have fewer than 32 characters/);
          return true;
        });
      }
      assert.throws(() => loadConfig({ CUMULO_BOOTSTRAP_TOKEN: 'x'.repeat(31) }), /CUMULO_BOOTSTRAP_TOKEN/);
      assert.equal(loadConfig({ CUMULO_BOOTSTRAP_TOKEN: 'x'.repeat(32) }).bootstrapToken, 'x'.repeat(32));
    });

    test('a start with a bootstrap token stored under the old 16-character rule shortens what its listing shows', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const db = app.runtime.ctx.db;
      await db
        .updateTable('tokens')
        .set({ token_prefix: ADMIN_TOKEN.slice(0, 16) })
        .where('label', '=', 'bootstrap')
        .execute();
      assert.equal((await ensureBootstrap(app.runtime.ctx, ADMIN_TOKEN)).kind, 'existing');
      const list = await app.request('GET', '/v4/profile/tokens');
      assert.equal(list.body.data[0].token, ADMIN_TOKEN.slice(0, ADMIN_TOKEN.length - 32));
    });

    test('a migration takes away the prefixes older versions stored for bootstrap tokens (maybe whole short tokens)', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const db = app.runtime.ctx.db;
      const me = await admin(app);
      // As an older version stored a 16-character bootstrap token that a later start replaced.
      const old = await db
        .insertInto('tokens')
        .values({
          account_id: me.accountId,
          user_id: me.userId,
          label: 'bootstrap',
          scopes: '*',
          token_hash: 'f'.repeat(64),
          token_prefix: 'old-short-token!',
          created: '2026-01-01T00:00:00',
          expiry: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      // The app ran its migrations before the row existed: run this one again, as an upgrade would.
      await bootstrapTokenPrefixes.up(db as unknown as MigrationDb, app.runtime.ctx.dbKind);
      const listed = await app.request('GET', `/v4/profile/tokens/${old.id}`);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.token, '');
    });

    test('list filters on label and pages', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const label of ['alpha', 'beta', 'alphabet']) {
        assert.equal((await app.request('POST', '/v4/profile/tokens', { body: { label } })).status, 200);
      }
      const filtered = await app.request('GET', '/v4/profile/tokens', {
        headers: { 'x-filter': JSON.stringify({ label: { '+contains': 'alpha' } }) },
      });
      assert.equal(filtered.status, 200);
      assert.deepEqual(
        filtered.body.data.map((d: { label: string }) => d.label),
        ['alpha', 'alphabet'],
      );
      const bad = await app.request('GET', '/v4/profile/tokens', { headers: { 'x-filter': '{"scopes":"*"}' } });
      assert.equal(bad.status, 400);
    });

    test('without scopes the new token gets the caller token scopes; without label a generated one', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const narrow = await tokenFor(app, me, { scopes: 'account:read_write events:read_only' });
      const res = await app.request('POST', '/v4/profile/tokens', { token: narrow, body: {} });
      assert.equal(res.status, 200);
      assert.equal(res.body.scopes, 'account:read_write events:read_only');
      assert.ok(res.body.label.length >= 1 && res.body.label.length <= 100);
    });

    test('a token cannot be created with more scopes than the calling token', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const narrow = await tokenFor(app, me, { scopes: 'account:read_write nodes:read_only' });
      for (const scopes of ['*', 'nodes:read_write', 'domains:read_only']) {
        const res = await app.request('POST', '/v4/profile/tokens', { token: narrow, body: { scopes } });
        assert.equal(res.status, 400, scopes);
        assert.equal(res.body.errors[0].field, 'scopes');
        assert.match(res.body.errors[0].reason, /more scopes/);
      }
      const ok = await app.request('POST', '/v4/profile/tokens', { token: narrow, body: { scopes: 'nodes:read_only' } });
      assert.equal(ok.status, 200);
    });

    test('create validates scopes, label and expiry', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const cases: [unknown, string][] = [
        [{ scopes: 'nodes:write' }, 'scopes'],
        [{ scopes: 'bogus:read_only' }, 'scopes'],
        [{ label: '' }, 'label'],
        [{ label: 'x'.repeat(101) }, 'label'],
        [{ expiry: 'tomorrow' }, 'expiry'],
        [{ expiry: '2001-01-01T00:00:00' }, 'expiry'],
        [{ expiry: 12 }, 'expiry'],
      ];
      for (const [body, field] of cases) {
        const res = await app.request('POST', '/v4/profile/tokens', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(body));
      }
      const past = await app.request('POST', '/v4/profile/tokens', { body: { expiry: '2001-01-01T00:00:00Z' } });
      assert.equal(past.body.errors[0].reason, 'Must be in the future');
      const nullExpiry = await app.request('POST', '/v4/profile/tokens', { body: { expiry: null } });
      assert.equal(nullExpiry.status, 200);
      assert.equal(nullExpiry.body.expiry, '2999-12-12T05:00:00', 'null is never');
      const stored = await app.runtime.ctx.db
        .selectFrom('tokens')
        .select('expiry')
        .where('id', '=', nullExpiry.body.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.expiry, null, 'kept as never, not as a date');
      assert.equal((await app.request('GET', '/v4/profile', { token: nullExpiry.body.token })).status, 200);
    });

    test('an expiry is stored in UTC at second precision', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const at = app.runtime.ctx.clock.nowMs() + 3_600_000;
      const local = new Date(at).toISOString().replace('Z', '+00:00');
      const res = await app.request('POST', '/v4/profile/tokens', { body: { expiry: local } });
      assert.equal(res.status, 200);
      assert.equal(res.body.expiry, toTimestamp(at));
    });

    test('update changes only the label and records token_update', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const created = await app.request('POST', '/v4/profile/tokens', { body: { label: 'old', scopes: 'nodes:read_only' } });
      const id = created.body.id;
      const res = await app.request('PUT', `/v4/profile/tokens/${id}`, {
        body: { label: 'new', scopes: '*', token: 'x', expiry: '2099-01-01T00:00:00', id: 999 },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.id, id);
      assert.equal(res.body.label, 'new');
      assert.equal(res.body.scopes, 'nodes:read_only');
      assert.equal(res.body.expiry, '2999-12-12T05:00:00', 'unchanged: never');
      const bad = await app.request('PUT', `/v4/profile/tokens/${id}`, { body: { label: '' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].field, 'label');
      const [event] = await eventsOf(app, me.accountId, 'token_update');
      assert.equal(event?.entity_type, 'token');
      assert.equal(event?.entity_id, id);
      assert.equal(event?.entity_label, 'new');
      assert.equal(event?.entity_url, `/v4/profile/tokens/${id}`);
      assert.equal(event?.username, 'admin');
    });

    test('create and delete record events; a deleted token stops working at once', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const created = await app.request('POST', '/v4/profile/tokens', { body: { label: 'gone' } });
      const [made] = await eventsOf(app, me.accountId, 'token_create');
      assert.equal(made?.entity_id, created.body.id);
      assert.equal(made?.entity_label, 'gone');
      assert.equal(made?.status, 'notification');
      const del = await app.request('DELETE', `/v4/profile/tokens/${created.body.id}`);
      assert.equal(del.status, 200);
      assert.deepEqual(del.body, {});
      assert.equal((await app.request('GET', '/v4/profile', { token: created.body.token })).status, 401);
      assert.equal((await app.request('GET', `/v4/profile/tokens/${created.body.id}`)).status, 404);
      const [deleted] = await eventsOf(app, me.accountId, 'token_delete');
      assert.equal(deleted?.entity_id, created.body.id);
    });

    test('a token in use follows changes at once: its deletion, its user made restricted, renamed or deleted', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const bob = await newUser(app, me.accountId);
      const spare = await tokenFor(app, bob);
      assert.equal((await app.request('GET', '/v4/account/users', { token: bob.token })).status, 200);
      const [listed] = (await app.request('GET', '/v4/profile/tokens', { token: spare })).body.data;
      await app.request('DELETE', `/v4/profile/tokens/${listed.id}`, { token: spare });
      assert.equal((await app.request('GET', '/v4/profile', { token: bob.token })).status, 401, 'deleted token');

      const carol = await newUser(app, me.accountId);
      assert.equal((await app.request('GET', '/v4/account/users', { token: carol.token })).status, 200);
      await app.request('PUT', `/v4/account/users/${carol.username}`, { body: { restricted: true } });
      assert.equal((await app.request('GET', '/v4/account/users', { token: carol.token })).status, 403, 'made restricted');
      const renamed = `${carol.username}x`;
      await app.request('PUT', `/v4/account/users/${carol.username}`, { body: { username: renamed } });
      assert.equal((await app.request('GET', '/v4/profile', { token: carol.token })).body.username, renamed);
      await app.request('DELETE', `/v4/account/users/${renamed}`);
      assert.equal((await app.request('GET', '/v4/profile', { token: carol.token })).status, 401, 'user deleted');
    });

    test('the token of the request may delete itself', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const created = await app.request('POST', '/v4/profile/tokens', { body: { label: 'self' } });
      const own = created.body.token;
      const res = await app.request('DELETE', `/v4/profile/tokens/${created.body.id}`, { token: own });
      assert.equal(res.status, 200);
      assert.equal((await app.request('GET', '/v4/profile', { token: own })).status, 401);
    });

    test("another user's or another account's token is not found", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const colleague = await newUser(app, me.accountId);
      const stranger = await newAccount(app);
      const theirs = await app.request('POST', '/v4/profile/tokens', { token: colleague.token, body: { label: 'c' } });
      const foreign = await app.request('POST', '/v4/profile/tokens', { token: stranger.token, body: { label: 's' } });
      for (const id of [theirs.body.id, foreign.body.id]) {
        assert.equal((await app.request('GET', `/v4/profile/tokens/${id}`)).status, 404);
        assert.equal((await app.request('PUT', `/v4/profile/tokens/${id}`, { body: { label: 'x' } })).status, 404);
        assert.equal((await app.request('DELETE', `/v4/profile/tokens/${id}`)).status, 404);
      }
      const mine = await app.request('GET', '/v4/profile/tokens', { token: colleague.token });
      assert.equal(mine.body.results, 2);
      assert.equal((await app.request('GET', '/v4/profile', { token: theirs.body.token })).body.username, colleague.username);
    });

    test('scopes and authentication are enforced; restricted users manage their own tokens', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      assert.equal((await app.request('GET', '/v4/profile/tokens', { token: null })).status, 401);
      assert.equal((await app.request('GET', '/v4/profile/tokens', { token: 'nope' })).status, 401);
      const reader = await tokenFor(app, me, { scopes: 'account:read_only' });
      assert.equal((await app.request('GET', '/v4/profile/tokens', { token: reader })).status, 200);
      assert.equal((await app.request('POST', '/v4/profile/tokens', { token: reader, body: {} })).status, 403);
      const other = await tokenFor(app, me, { scopes: 'nodes:read_write' });
      assert.equal((await app.request('GET', '/v4/profile/tokens', { token: other })).status, 403);
      assert.equal((await app.request('GET', '/v4/profile/tokens/1', { token: other })).status, 403);
      assert.equal((await app.request('PUT', '/v4/profile/tokens/1', { token: reader, body: {} })).status, 403);
      assert.equal((await app.request('DELETE', '/v4/profile/tokens/1', { token: reader })).status, 403);
      const restricted = await newUser(app, me.accountId, { restricted: true });
      const res = await app.request('POST', '/v4/profile/tokens', { token: restricted.token, body: { label: 'mine' } });
      assert.equal(res.status, 200);
    });

    test('unknown and malformed token ids', async (t) => {
      const app = await buildTestApp(t, { dialect });
      assert.equal((await app.request('GET', '/v4/profile/tokens/999999')).status, 404);
      // Not an id at all: a path naming nothing, like an id that exists nowhere.
      const bad = await app.request('GET', '/v4/profile/tokens/abc');
      assert.equal(bad.status, 404);
      assert.ok(Array.isArray(bad.body.errors));
    });
  });
}
