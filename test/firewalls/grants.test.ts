import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { createFirewall } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`firewall grants [${dialect}]`, () => {
    test("the grants object's firewall list gives a restricted user another user's firewall, read_only or read_write", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const firewall = await createFirewall(app);
      const other = await createFirewall(app);
      const bob = await newUser(app, me.accountId, { restricted: true });
      const grants = `/v4/account/users/${bob.username}/grants`;
      const view = `/v4/networking/firewalls/${firewall.id}`;
      const rename = (label: string) => app.request('PUT', view, { body: { label }, token: bob.token });

      assert.equal((await app.request('GET', view, { token: bob.token })).status, 404, 'no grant: not seen');
      const before = await app.request('GET', grants);
      assert.deepEqual(
        before.body.firewall.map((g: { id: number; permissions: string | null }) => [g.id, g.permissions]),
        [
          [firewall.id, null],
          [other.id, null],
        ],
      );

      const readOnly = await app.request('PUT', grants, { body: { firewall: [{ id: firewall.id, permissions: 'read_only' }] } });
      assert.equal(readOnly.status, 200, JSON.stringify(readOnly.body));
      const granted = readOnly.body.firewall.find((g: { id: number }) => g.id === firewall.id);
      assert.deepEqual([granted.permissions, granted.label], ['read_only', firewall.label]);
      assert.equal((await app.request('GET', view, { token: bob.token })).status, 200);
      const list = await app.request('GET', '/v4/networking/firewalls', { token: bob.token });
      assert.deepEqual(
        list.body.data.map((f: { id: number }) => f.id),
        [firewall.id],
      );
      assert.equal((await rename('renamed-fw')).status, 403);
      const profile = await app.request('GET', '/v4/profile/grants', { token: bob.token });
      assert.equal(profile.body.firewall.find((g: { id: number }) => g.id === firewall.id).permissions, 'read_only');

      await app.request('PUT', grants, { body: { firewall: [{ id: firewall.id, permissions: 'read_write' }] } });
      assert.equal((await rename('renamed-fw')).status, 200);
      await app.request('PUT', grants, { body: { firewall: [{ id: firewall.id, permissions: null }] } });
      assert.equal((await app.request('GET', view, { token: bob.token })).status, 404, 'the grant taken away');

      const unknown = await app.request('PUT', grants, { body: { firewall: [{ id: 999999, permissions: 'read_only' }] } });
      assert.equal(unknown.status, 400);
    });
  });
}
