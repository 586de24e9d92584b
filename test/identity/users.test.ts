import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser, tokenFor, uniqueName } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { eventsOf, KEYS } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`account users [${dialect}]`, () => {
    test('create, view and list; restricted defaults to false; ssh_keys are the profile key labels', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const created = await app.request('POST', '/v4/account/users', {
        body: { username: 'jane_doe-2', email: 'jane@example.com', ssh_keys: ['ignored'], tfa_enabled: true },
      });
      assert.equal(created.status, 200);
      assert.deepEqual(created.body, {
        username: 'jane_doe-2',
        email: 'jane@example.com',
        restricted: false,
        ssh_keys: [],
        tfa_enabled: false,
        verified_phone_number: null,
        password_created: null,
        last_login: null,
        user_type: 'default',
      });
      await app.request('POST', '/v4/profile/sshkeys', { body: { label: 'home-pc', ssh_key: KEYS.ed25519 } });
      await app.request('POST', '/v4/profile/sshkeys', { body: { label: 'laptop', ssh_key: KEYS.rsa } });

      const view = await app.request('GET', '/v4/account/users/admin');
      assert.equal(view.status, 200);
      assert.deepEqual(view.body.ssh_keys, ['home-pc', 'laptop']);
      const list = await app.request('GET', '/v4/account/users');
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.data.map((u: { username: string }) => u.username),
        ['admin', 'jane_doe-2'],
      );
      assert.deepEqual(list.body.data[0].ssh_keys, ['home-pc', 'laptop']);
      const filtered = await app.request('GET', '/v4/account/users', {
        headers: { 'x-filter': JSON.stringify({ username: 'jane_doe-2' }) },
      });
      assert.equal(filtered.body.results, 1);

      const [event] = await eventsOf(app, me.accountId, 'user_create');
      assert.equal(event?.entity_type, 'user');
      assert.equal(event?.entity_label, 'jane_doe-2');
      assert.equal(event?.entity_url, '/v4/account/users/jane_doe-2');
      assert.equal(event?.username, 'admin');
      const row = await app.runtime.ctx.db
        .selectFrom('users')
        .select('id')
        .where('username', '=', 'jane_doe-2')
        .executeTakeFirstOrThrow();
      assert.equal(event?.entity_id, row.id);
    });

    test('create validates username and email', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const cases: [unknown, string][] = [
        [{ email: 'a@example.com' }, 'username'],
        [{ username: 'valid_name' }, 'email'],
        [{ username: 'ab', email: 'a@example.com' }, 'username'],
        [{ username: 'x'.repeat(33), email: 'a@example.com' }, 'username'],
        [{ username: '_starts', email: 'a@example.com' }, 'username'],
        [{ username: 'ends-', email: 'a@example.com' }, 'username'],
        [{ username: 'two--dashes', email: 'a@example.com' }, 'username'],
        [{ username: 'mixed_-run', email: 'a@example.com' }, 'username'],
        [{ username: 'has space', email: 'a@example.com' }, 'username'],
        [{ username: 'valid_name', email: 'nope' }, 'email'],
        [{ username: 'valid_name', email: 'a@example.com', restricted: 'yes' }, 'restricted'],
      ];
      for (const [body, field] of cases) {
        const res = await app.request('POST', '/v4/account/users', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(body));
      }
      const pattern = await app.request('POST', '/v4/account/users', { body: { username: 'a--b', email: 'a@example.com' } });
      assert.match(pattern.body.errors[0].reason, /begin and end with a letter or digit/);
    });

    test('usernames are unique across the service, ignoring case', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const stranger = await newAccount(app);
      for (const username of ['admin', 'ADMIN', stranger.username]) {
        const res = await app.request('POST', '/v4/account/users', { body: { username, email: 'x@example.com' } });
        assert.equal(res.status, 400, username);
        assert.deepEqual(res.body.errors, [{ field: 'username', reason: 'Username taken' }]);
      }
    });

    test('update renames, changes email and restricted; read-only fields are ignored', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const bob = await newUser(app, me.accountId, { restricted: true });
      const domain = await app.request('POST', '/v4/domains', {
        body: { domain: 'bob.example', type: 'master', soa_email: 'hostmaster@bob.example' },
      });
      const granted = await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: { global: { add_nodes: true }, domain: [{ id: domain.body.id, permissions: 'read_write' }] },
      });
      assert.equal(granted.status, 200, JSON.stringify(granted.body));
      const renamed = uniqueName('bob');
      const res = await app.request('PUT', `/v4/account/users/${bob.username}`, {
        body: { username: renamed, email: 'bob@example.com', restricted: false, ssh_keys: ['x'], tfa_enabled: true },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        username: renamed,
        email: 'bob@example.com',
        restricted: false,
        ssh_keys: [],
        tfa_enabled: false,
        verified_phone_number: null,
        password_created: null,
        last_login: null,
        user_type: 'default',
      });
      assert.equal((await app.request('GET', `/v4/account/users/${bob.username}`)).status, 404);
      assert.equal((await app.request('GET', '/v4/profile', { token: bob.token })).body.username, renamed);
      const [event] = await eventsOf(app, me.accountId, 'user_update');
      assert.equal(event?.entity_id, bob.userId);
      assert.equal(event?.entity_label, renamed);
      assert.equal(event?.entity_url, `/v4/account/users/${renamed}`);

      // Made restricted again, the user starts with no grants.
      await app.request('PUT', `/v4/account/users/${renamed}`, { body: { restricted: true } });
      const grants = await app.request('GET', `/v4/account/users/${renamed}/grants`);
      assert.equal(grants.body.global.add_nodes, false);
      assert.deepEqual(grants.body.domain, [{ id: domain.body.id, permissions: null, label: 'bob.example' }]);

      const taken = await app.request('PUT', `/v4/account/users/${renamed}`, { body: { username: 'Admin' } });
      assert.equal(taken.status, 400);
      assert.equal(taken.body.errors[0].field, 'username');
      const recase = await app.request('PUT', `/v4/account/users/${renamed}`, { body: { username: renamed.toUpperCase() } });
      assert.equal(recase.status, 200, 'a user may change the case of its own name');
      const invalid = await app.request('PUT', `/v4/account/users/${renamed.toUpperCase()}`, { body: { email: 'bad' } });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.errors[0].field, 'email');
    });

    test('a user cannot change its own restricted status or delete itself', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const self = await app.request('PUT', '/v4/account/users/admin', { body: { restricted: true } });
      assert.equal(self.status, 400);
      assert.equal(self.body.errors[0].field, 'restricted');
      const same = await app.request('PUT', '/v4/account/users/admin', { body: { restricted: false, email: 'a@example.com' } });
      assert.equal(same.status, 200);
      const del = await app.request('DELETE', '/v4/account/users/admin');
      assert.equal(del.status, 400);
      assert.equal((await app.request('GET', '/v4/account/users/admin')).status, 200);
    });

    test('delete removes the user with its tokens, keys and grants, and records user_delete', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const carol = await newUser(app, me.accountId, { restricted: true });
      await app.request('POST', '/v4/profile/sshkeys', { token: carol.token, body: { ssh_key: KEYS.ed25519 } });
      const node = await app.request('POST', '/v4/node/instances', { body: { region: 'us-east', type: 'g6-nanode-1' } });
      const granted = await app.request('PUT', `/v4/account/users/${carol.username}/grants`, {
        body: { node: [{ id: node.body.id, permissions: 'read_only' }] },
      });
      assert.equal(granted.status, 200);
      const res = await app.request('DELETE', `/v4/account/users/${carol.username}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {});
      assert.equal((await app.request('GET', '/v4/profile', { token: carol.token })).status, 401);
      assert.equal((await app.request('GET', `/v4/account/users/${carol.username}`)).status, 404);
      const { db } = app.runtime.ctx;
      for (const table of ['tokens', 'ssh_keys', 'entity_grants'] as const) {
        const left = await db.selectFrom(table).select('user_id').where('user_id', '=', carol.userId).execute();
        assert.equal(left.length, 0, table);
      }
      const [event] = await eventsOf(app, me.accountId, 'user_delete');
      assert.equal(event?.entity_id, carol.userId);
      assert.equal(event?.entity_label, carol.username);
    });

    test("another account's users are not found", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const stranger = await newAccount(app);
      const path = `/v4/account/users/${stranger.username}`;
      assert.equal((await app.request('GET', path)).status, 404);
      assert.equal((await app.request('PUT', path, { body: { email: 'x@example.com' } })).status, 404);
      assert.equal((await app.request('DELETE', path)).status, 404);
      assert.equal((await app.request('GET', `${path}/grants`)).status, 404);
      assert.equal((await app.request('PUT', `${path}/grants`, { body: {} })).status, 404);
      const list = await app.request('GET', '/v4/account/users');
      assert.deepEqual(
        list.body.data.map((u: { username: string }) => u.username),
        ['admin'],
      );
      assert.equal((await app.request('GET', '/v4/account/users', { token: stranger.token })).body.results, 1);
    });

    test('only unrestricted users with the account scope manage users', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const restricted = await newUser(app, me.accountId, { restricted: true });
      await app.request('PUT', `/v4/account/users/${restricted.username}/grants`, {
        body: { global: { account_access: 'read_write' } },
      });
      const body = { username: uniqueName(), email: 'x@example.com' };
      const calls: [string, string, unknown?][] = [
        ['GET', '/v4/account/users'],
        ['POST', '/v4/account/users', body],
        ['GET', '/v4/account/users/admin'],
        ['PUT', '/v4/account/users/admin', { email: 'x@example.com' }],
        ['DELETE', '/v4/account/users/admin'],
        ['GET', `/v4/account/users/${restricted.username}/grants`],
        ['PUT', `/v4/account/users/${restricted.username}/grants`, {}],
      ];
      const reader = await tokenFor(app, me, { scopes: 'account:read_only' });
      for (const [method, url, payload] of calls) {
        const options = payload === undefined ? {} : { body: payload };
        assert.equal((await app.request(method, url, { ...options, token: null })).status, 401, `${method} ${url}`);
        const refused = await app.request(method, url, { ...options, token: restricted.token });
        assert.equal(refused.status, 403, `${method} ${url}`);
        assert.match(refused.body.errors[0].reason, /unrestricted/);
        const scoped = await app.request(method, url, { ...options, token: reader });
        assert.equal(scoped.status, method === 'GET' ? 200 : 403, `${method} ${url} with account:read_only`);
      }
    });
  });
}
