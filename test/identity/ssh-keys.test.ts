import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser, tokenFor } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { eventsOf, KEYS } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`profile SSH keys [${dialect}]`, () => {
    test('add, list, view, relabel and delete, each change with its event', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const added = await app.request('POST', '/v4/profile/sshkeys', {
        body: { label: 'laptop', ssh_key: ` ${KEYS.ed25519}\n` },
      });
      assert.equal(added.status, 200);
      assert.equal(added.body.label, 'laptop');
      assert.equal(added.body.ssh_key, KEYS.ed25519);
      assert.match(added.body.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      const id = added.body.id;
      const second = await app.request('POST', '/v4/profile/sshkeys', { body: { ssh_key: KEYS.rsa } });
      assert.equal(second.status, 200);
      assert.equal(second.body.label, '');

      const list = await app.request('GET', '/v4/profile/sshkeys?page_size=25');
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data, [added.body, second.body]);
      assert.deepEqual([list.body.page, list.body.pages, list.body.results], [1, 1, 2]);
      assert.deepEqual((await app.request('GET', `/v4/profile/sshkeys/${id}`)).body, added.body);

      const relabel = await app.request('PUT', `/v4/profile/sshkeys/${id}`, {
        body: { label: 'desktop', ssh_key: KEYS.rsa, id: 5, created: '2000-01-01T00:00:00' },
      });
      assert.equal(relabel.status, 200);
      assert.deepEqual(relabel.body, { ...added.body, label: 'desktop' });
      const empty = await app.request('PUT', `/v4/profile/sshkeys/${id}`, { body: { label: '' } });
      assert.equal(empty.status, 200);
      assert.equal(empty.body.label, '');

      assert.equal((await app.request('DELETE', `/v4/profile/sshkeys/${id}`)).status, 200);
      assert.equal((await app.request('GET', `/v4/profile/sshkeys/${id}`)).status, 404);
      assert.equal((await app.request('GET', '/v4/profile/sshkeys')).body.results, 1);

      const [add] = await eventsOf(app, me.accountId, 'user_ssh_key_add');
      assert.equal(add?.entity_type, 'user_ssh_key');
      assert.equal(add?.entity_id, id);
      assert.equal(add?.entity_label, 'laptop');
      assert.equal(add?.entity_url, `/v4/profile/sshkeys/${id}`);
      assert.equal((await eventsOf(app, me.accountId, 'user_ssh_key_update')).length, 2);
      const [del] = await eventsOf(app, me.accountId, 'user_ssh_key_delete');
      assert.equal(del?.entity_id, id);
    });

    test('add validates the key and the label', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const cases: [unknown, string][] = [
        [{ label: 'x' }, 'ssh_key'],
        [{ ssh_key: 'ssh-rsa AAAA_valid_public_ssh_key_123456785== user@their-computer' }, 'ssh_key'],
        [{ ssh_key: `ssh-rsa ${KEYS.ed25519.split(' ')[1]}` }, 'ssh_key'],
        [{ ssh_key: 12 }, 'ssh_key'],
        [{ ssh_key: KEYS.ed25519, label: '' }, 'label'],
        [{ ssh_key: KEYS.ed25519, label: 'x'.repeat(65) }, 'label'],
      ];
      for (const [body, field] of cases) {
        const res = await app.request('POST', '/v4/profile/sshkeys', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(body));
      }
      const long = await app.request('PUT', '/v4/profile/sshkeys/1', { body: { label: 'x'.repeat(65) } });
      assert.equal(long.status, 400);
      assert.equal((await app.request('GET', '/v4/profile/sshkeys')).body.results, 0);
    });

    test("another user's or another account's key is not found", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const colleague = await newUser(app, me.accountId);
      const stranger = await newAccount(app);
      const ids: number[] = [];
      for (const who of [colleague, stranger]) {
        const res = await app.request('POST', '/v4/profile/sshkeys', { token: who.token, body: { ssh_key: KEYS.ecdsa } });
        ids.push(res.body.id);
      }
      for (const id of ids) {
        assert.equal((await app.request('GET', `/v4/profile/sshkeys/${id}`)).status, 404);
        assert.equal((await app.request('PUT', `/v4/profile/sshkeys/${id}`, { body: { label: 'x' } })).status, 404);
        assert.equal((await app.request('DELETE', `/v4/profile/sshkeys/${id}`)).status, 404);
      }
      assert.equal((await app.request('GET', '/v4/profile/sshkeys')).body.results, 0);
      assert.equal((await app.request('GET', '/v4/profile/sshkeys', { token: colleague.token })).body.results, 1);
    });

    test('scopes: reads need account:read_only, changes account:read_write; restricted users keep their own keys', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      assert.equal((await app.request('GET', '/v4/profile/sshkeys', { token: null })).status, 401);
      const reader = await tokenFor(app, me, { scopes: 'account:read_only' });
      const other = await tokenFor(app, me, { scopes: 'events:read_write' });
      assert.equal((await app.request('GET', '/v4/profile/sshkeys', { token: reader })).status, 200);
      assert.equal((await app.request('GET', '/v4/profile/sshkeys', { token: other })).status, 403);
      assert.equal((await app.request('GET', '/v4/profile/sshkeys/1', { token: other })).status, 403);
      const body = { ssh_key: KEYS.ed25519 };
      assert.equal((await app.request('POST', '/v4/profile/sshkeys', { token: reader, body })).status, 403);
      assert.equal((await app.request('PUT', '/v4/profile/sshkeys/1', { token: reader, body: {} })).status, 403);
      assert.equal((await app.request('DELETE', '/v4/profile/sshkeys/1', { token: reader })).status, 403);
      const restricted = await newUser(app, me.accountId, { restricted: true });
      assert.equal((await app.request('POST', '/v4/profile/sshkeys', { token: restricted.token, body })).status, 200);
      assert.equal((await app.request('GET', '/v4/profile/sshkeys', { token: restricted.token })).body.results, 1);
    });
  });
}
