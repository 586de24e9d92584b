import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newUser, tokenFor } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { eventsOf, KEYS } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`profile [${dialect}]`, () => {
    test('view shows the calling user, with any token scope', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const res = await app.request('GET', '/v4/profile');
      assert.equal(res.status, 200);
      assert.equal(res.body.uid, me.userId);
      assert.equal(res.body.username, 'admin');
      assert.equal(res.body.restricted, false);
      assert.equal(res.body.authorized_keys, null);
      const narrow = await tokenFor(app, me, { scopes: 'nodes:read_only' });
      assert.equal((await app.request('GET', '/v4/profile', { token: narrow })).status, 200);
      assert.equal((await app.request('GET', '/v4/profile', { token: null })).status, 401);
    });

    test('referrals: a code of the user and a URL on the public address (the request host without one)', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { publicUrl: 'https://cloud.example.com/' } });
      const me = await admin(app);
      const { referrals } = (await app.request('GET', '/v4/profile')).body;
      assert.match(referrals.code, /^[0-9a-f]{40}$/);
      assert.equal(referrals.url, `https://cloud.example.com/referrals/${referrals.code}`);
      assert.ok(URL.canParse(referrals.url));
      assert.deepEqual([referrals.total, referrals.completed, referrals.pending, referrals.credit], [0, 0, 0, 0]);
      assert.deepEqual((await app.request('GET', '/v4/profile')).body.referrals, referrals, 'stable');
      const updated = await app.request('PUT', '/v4/profile', { body: { timezone: 'Europe/Berlin' } });
      assert.deepEqual(updated.body.referrals, referrals, 'updates answer the same');
      const other = await newUser(app, me.accountId);
      const theirs = (await app.request('GET', '/v4/profile', { token: other.token })).body.referrals;
      assert.notEqual(theirs.code, referrals.code, 'each user has a code of their own');

      const local = await buildTestApp(t, { dialect });
      const res = await local.request('GET', '/v4/profile', { headers: { host: 'cumulo.test:8080' } });
      assert.equal(res.body.referrals.url, `http://cumulo.test:8080/referrals/${res.body.referrals.code}`);
    });

    test('update changes the editable fields, ignores read-only ones and records profile_update', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const res = await app.request('PUT', '/v4/profile', {
        body: {
          email: 'new@example.com',
          timezone: 'Europe/Berlin',
          email_notifications: false,
          lish_auth_method: 'disabled',
          authorized_keys: [KEYS.ed25519, `  ${KEYS.rsa}  `],
          username: 'hacker',
          uid: 1,
          restricted: true,
          two_factor_auth: true,
          referrals: { code: 'x' },
        },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.email, 'new@example.com');
      assert.equal(res.body.timezone, 'Europe/Berlin');
      assert.equal(res.body.email_notifications, false);
      assert.equal(res.body.lish_auth_method, 'disabled');
      assert.deepEqual(res.body.authorized_keys, [KEYS.ed25519, KEYS.rsa]);
      assert.equal(res.body.username, 'admin');
      assert.equal(res.body.uid, me.userId);
      assert.equal(res.body.restricted, false);
      assert.equal(res.body.two_factor_auth, false);
      assert.deepEqual((await app.request('GET', '/v4/profile')).body, res.body);
      const [event] = await eventsOf(app, me.accountId, 'profile_update');
      assert.equal(event?.entity_type, 'profile');
      assert.equal(event?.entity_id, me.userId);
      assert.equal(event?.username, 'admin');

      const cleared = await app.request('PUT', '/v4/profile', { body: { authorized_keys: null } });
      assert.equal(cleared.body.authorized_keys, null);
    });

    test('update validates its fields', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const cases: [unknown, string][] = [
        [{ email: 'not-an-email' }, 'email'],
        [{ timezone: 'Mars/Olympus' }, 'timezone'],
        [{ lish_auth_method: 'always' }, 'lish_auth_method'],
        [{ email_notifications: 'yes' }, 'email_notifications'],
        [{ ip_whitelist_enabled: true }, 'ip_whitelist_enabled'],
        [{ authorized_keys: [KEYS.ed25519, 'ssh-rsa nope'] }, 'authorized_keys[1]'],
      ];
      for (const [body, field] of cases) {
        const res = await app.request('PUT', '/v4/profile', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(body));
      }
      assert.equal((await app.request('PUT', '/v4/profile', { body: { ip_whitelist_enabled: false } })).status, 200);
    });

    test('update needs account:read_write; restricted users may edit their own profile', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const reader = await tokenFor(app, me, { scopes: 'account:read_only' });
      assert.equal((await app.request('PUT', '/v4/profile', { token: reader, body: { timezone: 'UTC' } })).status, 403);
      assert.equal((await app.request('PUT', '/v4/profile', { token: null, body: {} })).status, 401);
      const restricted = await newUser(app, me.accountId, { restricted: true });
      const res = await app.request('PUT', '/v4/profile', { token: restricted.token, body: { timezone: 'UTC' } });
      assert.equal(res.status, 200);
      assert.equal(res.body.username, restricted.username);
      assert.equal(res.body.restricted, true);
    });

    test('grants: 204 for an unrestricted user, the held grants for a restricted one', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const own = await app.request('GET', '/v4/profile/grants');
      assert.equal(own.status, 204);
      assert.equal(own.body, '');
      const restricted = await newUser(app, me.accountId, { restricted: true, scopes: 'nodes:read_only' });
      const node = await app.request('POST', '/v4/node/instances', {
        body: { region: 'us-east', type: 'g6-nanode-1', label: 'seen' },
      });
      await app.request('POST', '/v4/node/instances', { body: { region: 'us-east', type: 'g6-nanode-1', label: 'unseen' } });
      const granted = await app.request('PUT', `/v4/account/users/${restricted.username}/grants`, {
        body: { global: { add_nodes: true }, node: [{ id: node.body.id, permissions: 'read_only' }] },
      });
      assert.equal(granted.status, 200);
      const res = await app.request('GET', '/v4/profile/grants', { token: restricted.token });
      assert.equal(res.status, 200);
      assert.equal(res.body.global.add_nodes, true);
      assert.equal(res.body.global.account_access, null);
      assert.deepEqual(res.body.node, [{ id: node.body.id, permissions: 'read_only', label: 'seen' }], 'only the held grants');
      assert.deepEqual(res.body.image, []);
      // Not offered here: held by no one.
      assert.deepEqual([res.body.database, res.body.vpc], [[], []]);
      assert.deepEqual(
        [res.body.global.add_databases, res.body.global.add_vpcs, res.body.global.child_account_access],
        [false, false, null],
      );
      assert.equal((await app.request('GET', '/v4/profile/grants', { token: null })).status, 401);
    });
  });
}
