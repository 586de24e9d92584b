import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { admin, createDomain, createEmptyNode, kindsAndIds, makeTag, newUser, taggedObjects, tagLabels } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`tags and restricted users [${dialect}]`, () => {
    test('a restricted user may not make or delete tags, and sees only tags and tagged objects its grants reach', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const seen = await createEmptyNode(app);
      const unseen = await createEmptyNode(app);
      const domain = await createDomain(app);
      const firewall = await app.request('POST', '/v4/networking/firewalls', {
        body: { label: 'fw-granted', rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT' }, tags: ['on-firewall'] },
      });
      assert.equal(firewall.status, 200, JSON.stringify(firewall.body));
      await makeTag(app, { label: 'mixed', nodes: [seen.id, unseen.id], domains: [domain.id] });
      await makeTag(app, { label: 'hidden', nodes: [unseen.id], domains: [domain.id] });
      await makeTag(app, { label: 'on nothing' });

      const bob = await newUser(app, me.accountId, { restricted: true });
      const granted = await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: {
          node: [{ id: seen.id, permissions: 'read_only' }],
          firewall: [{ id: firewall.body.id, permissions: 'read_only' }],
        },
      });
      assert.equal(granted.status, 200, JSON.stringify(granted.body));

      const made = await app.request('POST', '/v4/tags', { token: bob.token, body: { label: 'bobs' } });
      assert.equal(made.status, 403, JSON.stringify(made.body));
      const deleted = await app.request('DELETE', '/v4/tags/mixed', { token: bob.token });
      assert.equal(deleted.status, 403);
      assert.deepEqual(await tagLabels(app), ['hidden', 'mixed', 'on nothing', 'on-firewall'], 'nothing made or deleted');

      assert.deepEqual(await tagLabels(app, bob.token), ['mixed', 'on nothing', 'on-firewall']);
      assert.deepEqual(kindsAndIds(await taggedObjects(app, 'mixed', bob.token)), [`node:${seen.id}`]);
      assert.equal((await taggedObjects(app, 'mixed', bob.token)).body.results, 1);
      assert.equal((await taggedObjects(app, 'hidden', bob.token)).status, 404, 'only on what bob may not see');
      assert.deepEqual(kindsAndIds(await taggedObjects(app, 'on-firewall', bob.token)), [], 'firewalls are not listed');

      await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: { domain: [{ id: domain.id, permissions: 'read_only' }] },
      });
      assert.deepEqual(kindsAndIds(await taggedObjects(app, 'hidden', bob.token)), [`domain:${domain.id}`]);
    });
  });
}
