import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createScript, idsOf } from './helpers.ts';

async function setGrants(app: TestApp, username: string, body: unknown): Promise<void> {
  const res = await app.request('PUT', `/v4/account/users/${username}/grants`, { body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

for (const dialect of DIALECTS) {
  describe(`stackscripts and restricted users [${dialect}]`, () => {
    test('create needs add_stackscripts; the creator then holds read_write on its script', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const user = await newUser(app, me.accountId, { restricted: true });
      const body = { label: 'restricted', script: '#!/bin/sh\n', images: ['any/all'] };
      const refused = await app.request('POST', '/v4/node/stackscripts', { token: user.token, body });
      assert.equal(refused.status, 403);
      assert.match(refused.body.errors[0].reason, /add_stackscripts/);

      await setGrants(app, user.username, { global: { add_stackscripts: true } });
      const created = await createScript(app, user, body);
      assert.equal(created.mine, true);
      assert.equal(created.username, user.username);
      assert.equal((await app.request('GET', `/v4/node/stackscripts/${created.id}`, { token: user.token })).status, 200);
      const updated = await app.request('PUT', `/v4/node/stackscripts/${created.id}`, {
        token: user.token,
        body: { label: 'renamed' },
      });
      assert.equal(updated.status, 200);

      const grants = await app.request('GET', `/v4/account/users/${user.username}/grants`);
      assert.deepEqual(grants.body.stackscript, [{ id: created.id, permissions: 'read_write', label: 'renamed' }]);
      const own = await app.request('GET', '/v4/profile/grants', { token: user.token });
      assert.deepEqual(own.body.stackscript, [{ id: created.id, permissions: 'read_write', label: 'renamed' }]);
    });

    test("the account's scripts by grant: none hides private ones, read_only reads, read_write changes", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const user = await newUser(app, me.accountId, { restricted: true });
      const hidden = await createScript(app, me, { label: 'no-grant' });
      const readable = await createScript(app, me, { label: 'read-only' });
      const writable = await createScript(app, me, { label: 'read-write' });
      const published = await createScript(app, me, { label: 'public-no-grant', is_public: true });

      const before = await app.request('GET', '/v4/node/stackscripts', { token: user.token });
      assert.deepEqual(idsOf(before), [published.id], 'only the public script before any grant');
      assert.equal(before.body.data[0].mine, false, 'not mine without a grant, even in the own account');

      await setGrants(app, user.username, {
        stackscript: [
          { id: readable.id, permissions: 'read_only' },
          { id: writable.id, permissions: 'read_write' },
        ],
      });
      const after = await app.request('GET', '/v4/node/stackscripts', { token: user.token });
      assert.deepEqual(idsOf(after), [readable.id, writable.id, published.id]);
      assert.deepEqual(
        after.body.data.map((d: { mine: boolean }) => d.mine),
        [true, true, false],
      );

      const url = (id: number) => `/v4/node/stackscripts/${id}`;
      assert.equal((await app.request('GET', url(hidden.id), { token: user.token })).status, 404);
      assert.equal((await app.request('PUT', url(hidden.id), { token: user.token, body: { label: 'x-x-x' } })).status, 404);
      assert.equal((await app.request('GET', url(readable.id), { token: user.token })).status, 200);
      assert.equal((await app.request('PUT', url(readable.id), { token: user.token, body: { label: 'x-x-x' } })).status, 403);
      assert.equal((await app.request('DELETE', url(readable.id), { token: user.token })).status, 403);
      assert.equal((await app.request('PUT', url(published.id), { token: user.token, body: { label: 'x-x-x' } })).status, 403);
      assert.equal((await app.request('PUT', url(writable.id), { token: user.token, body: { label: 'x-x-x' } })).status, 200);
      assert.equal((await app.request('DELETE', url(writable.id), { token: user.token })).status, 200);

      const unknown = await app.request('PUT', `/v4/account/users/${user.username}/grants`, {
        body: { stackscript: [{ id: 999999, permissions: 'read_only' }] },
      });
      assert.equal(unknown.status, 400, 'grants name only scripts of the account');
      assert.equal(unknown.body.errors[0].field, 'stackscript[0].id');
    });
  });
}
