import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createFirewall, fieldsOf, setStatus } from '../firewalls/helpers.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode, eventsOf, nodeBody, settle } from './helpers.ts';

async function nodeFirewalls(app: TestApp, nodeId: number, token?: string): Promise<number[]> {
  const res = await app.request('GET', `/v4/node/instances/${nodeId}/firewalls`, token ? { token } : {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.map((f: { id: number }) => f.id);
}

async function nodeCount(app: TestApp): Promise<number> {
  return (await app.request('GET', '/v4/node/instances')).body.results;
}

for (const dialect of DIALECTS) {
  describe(`node create with firewall_id [${dialect}]`, () => {
    test('the firewall is assigned to the new node with its firewall_device_add event; null is none', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const other = await createEmptyNode(app);
      // Enabled and on another node already: a new node holds no firewall, so it takes this one.
      const fw = await createFirewall(app, { devices: { nodes: [other.id] } });
      assert.equal(fw.status, 'enabled');

      const res = await app.request('POST', '/v4/node/instances', { body: nodeBody({ label: 'under-fw', firewall_id: fw.id }) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers.warning, undefined, 'firewall_id is not an ignored field');
      const node = res.body;
      assert.deepEqual(await nodeFirewalls(app, node.id), [fw.id]);
      const devices = await app.request('GET', `/v4/networking/firewalls/${fw.id}/devices`);
      assert.deepEqual(
        devices.body.data.map((d: { entity: unknown }) => d.entity),
        [
          { id: other.id, type: 'node', label: other.label, url: `/v4/node/instances/${other.id}`, parent_entity: null },
          { id: node.id, type: 'node', label: 'under-fw', url: `/v4/node/instances/${node.id}`, parent_entity: null },
        ],
      );
      const added = await eventsOf(app, me.accountId, 'firewall_device_add');
      assert.deepEqual(added.map((e) => [e.entity_type, e.entity_id, JSON.parse(e.secondary_entity ?? 'null')]).slice(-1), [
        ['firewall', fw.id, { id: node.id, type: 'node', label: 'under-fw', url: `/v4/node/instances/${node.id}` }],
      ]);
      const [created] = await eventsOf(app, me.accountId, 'node_create');
      assert.ok(created && created.id < (added.at(-1)?.id ?? 0), "the node's own event comes first");
      await settle(app);
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}`)).body.status, 'running');
      assert.deepEqual(await nodeFirewalls(app, node.id), [fw.id], 'provisioning keeps it');

      // An empty node takes one too, a disabled firewall as well; null asks for none.
      const off = await createFirewall(app);
      await setStatus(app, off.id, 'disabled');
      const empty = await createEmptyNode(app, { firewall_id: off.id });
      assert.deepEqual(await nodeFirewalls(app, empty.id), [off.id]);
      const none = await app.request('POST', '/v4/node/instances', { body: nodeBody({ firewall_id: null }) });
      assert.equal(none.status, 200, JSON.stringify(none.body));
      assert.equal(none.headers.warning, undefined);
      assert.deepEqual(await nodeFirewalls(app, none.body.id), []);
      assert.equal((await eventsOf(app, me.accountId, 'firewall_device_add')).length, 3);
    });

    test('a firewall that does not exist or is not the caller’s is a 400 on firewall_id, and nothing is made', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const stranger = await newAccount(app);
      const theirs = await createFirewall(app, {}, stranger.token);
      const deleted = await createFirewall(app);
      assert.equal((await app.request('DELETE', `/v4/networking/firewalls/${deleted.id}`)).status, 200);
      for (const firewallId of [999999, theirs.id, deleted.id, 'web', -1]) {
        for (const body of [nodeBody({ firewall_id: firewallId }), nodeBody({ image: undefined, firewall_id: firewallId })]) {
          const res = await app.request('POST', '/v4/node/instances', { body });
          assert.deepEqual([res.status, fieldsOf(res.body)], [400, ['firewall_id']], JSON.stringify(res.body));
        }
      }
      assert.equal(await nodeCount(app), 0, 'no node');
      assert.deepEqual(await eventsOf(app, me.accountId, 'node_create'), []);
      assert.deepEqual(await eventsOf(app, me.accountId, 'firewall_device_add'), []);
      const addresses = await app.runtime.ctx.db
        .selectFrom('ip_addresses')
        .select('address')
        .where('node_id', 'is not', null)
        .execute();
      assert.deepEqual(addresses, [], 'no address held');
      const devices = await app.request('GET', `/v4/networking/firewalls/${theirs.id}/devices`, { token: stranger.token });
      assert.equal(devices.body.results, 0);
    });

    test('a restricted user needs read_write on the firewall, as for a device add', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const hidden = await createFirewall(app);
      const readable = await createFirewall(app);
      const usable = await createFirewall(app);
      const bob = await newUser(app, me.accountId, { restricted: true });
      const grants = await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: {
          global: { add_nodes: true },
          firewall: [
            { id: readable.id, permissions: 'read_only' },
            { id: usable.id, permissions: 'read_write' },
          ],
        },
      });
      assert.equal(grants.status, 200, JSON.stringify(grants.body));
      const post = (firewallId: number) =>
        app.request('POST', '/v4/node/instances', { token: bob.token, body: nodeBody({ firewall_id: firewallId }) });

      const unseen = await post(hidden.id);
      assert.deepEqual([unseen.status, fieldsOf(unseen.body)], [400, ['firewall_id']]);
      assert.equal((await post(readable.id)).status, 403, 'read_only on the firewall');
      assert.equal(await nodeCount(app), 0, 'refused creates made nothing');
      const made = await post(usable.id);
      assert.equal(made.status, 200, JSON.stringify(made.body));
      assert.deepEqual(await nodeFirewalls(app, made.body.id, bob.token), [usable.id]);
    });
  });
}
