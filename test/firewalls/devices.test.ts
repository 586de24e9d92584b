import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { eventsOf } from '../identity/helpers.ts';
import { createEmptyNode } from '../nodes/helpers.ts';
import { createFirewall, fieldsOf, firewallBody, setStatus } from './helpers.ts';

const URL = '/v4/networking/firewalls';

async function nodeFirewalls(app: TestApp, nodeId: number): Promise<number[]> {
  const res = await app.request('GET', `/v4/node/instances/${nodeId}/firewalls`);
  assert.equal(res.status, 200);
  return res.body.data.map((f: { id: number }) => f.id);
}

for (const dialect of DIALECTS) {
  describe(`firewall devices [${dialect}]`, () => {
    test('devices.nodes at create assigns the firewall to each node, all or nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const a = await createEmptyNode(app, { label: 'node-a' });
      const b = await createEmptyNode(app, { label: 'node-b' });
      const fw = await createFirewall(app, { devices: { nodes: [a.id, b.id, a.id] } });
      assert.equal(Object.hasOwn(fw, 'devices'), false, 'a firewall has no devices in its view');
      const devices = await app.request('GET', `${URL}/${fw.id}/devices`);
      assert.equal(devices.status, 200);
      assert.equal(devices.body.results, 2, 'a node named twice is assigned once');
      assert.deepEqual(
        devices.body.data.map((d: { entity: unknown }) => d.entity),
        [
          { id: a.id, type: 'node', label: 'node-a', url: `/v4/node/instances/${a.id}`, parent_entity: null },
          { id: b.id, type: 'node', label: 'node-b', url: `/v4/node/instances/${b.id}`, parent_entity: null },
        ],
      );
      // The firewall lists what it is assigned to, as the devices do.
      const shown = (await app.request('GET', `${URL}/${fw.id}`)).body;
      assert.deepEqual(
        shown.entities,
        devices.body.data.map((d: { entity: unknown }) => d.entity),
      );
      assert.deepEqual(await nodeFirewalls(app, a.id), [fw.id]);
      assert.deepEqual(await nodeFirewalls(app, b.id), [fw.id]);
      const added = await eventsOf(app, me.accountId, 'firewall_device_add');
      assert.deepEqual(
        added.map((e) => [e.entity_type, e.entity_id, JSON.parse(e.secondary_entity ?? 'null')]),
        [
          ['firewall', fw.id, { id: a.id, type: 'node', label: 'node-a', url: `/v4/node/instances/${a.id}` }],
          ['firewall', fw.id, { id: b.id, type: 'node', label: 'node-b', url: `/v4/node/instances/${b.id}` }],
        ],
      );

      // One node the caller cannot use refuses the whole request: no firewall, no device, no event.
      const stranger = await newAccount(app);
      const theirs = await createEmptyNode(app, {}, stranger.token);
      const c = await createEmptyNode(app, { label: 'node-c' });
      const refused = await app.request('POST', URL, {
        body: firewallBody({ label: 'refused', devices: { nodes: [c.id, theirs.id] } }),
      });
      assert.equal(refused.status, 400);
      assert.deepEqual(fieldsOf(refused.body), ['devices.nodes[1]']);
      const missing = await app.request('POST', URL, { body: firewallBody({ label: 'refused', devices: { nodes: [999999] } }) });
      assert.deepEqual(fieldsOf(missing.body), ['devices.nodes[0]']);

      const user = await newUser(app, me.accountId, { restricted: true });
      const grant = await app.request('PUT', `/v4/account/users/${user.username}/grants`, {
        body: {
          global: { add_firewalls: true },
          node: [
            { id: c.id, permissions: 'read_write' },
            { id: a.id, permissions: 'read_only' },
          ],
        },
      });
      assert.equal(grant.status, 200);
      const readOnly = await app.request('POST', URL, {
        token: user.token,
        body: firewallBody({ label: 'refused', devices: { nodes: [c.id, a.id] } }),
      });
      assert.equal(readOnly.status, 403, 'read_write is needed on each node');
      assert.equal((await app.request('GET', URL)).body.results, 1, 'refused requests created nothing');
      assert.deepEqual(await nodeFirewalls(app, c.id), []);
      assert.equal((await eventsOf(app, me.accountId, 'firewall_create')).length, 1);
      assert.equal((await eventsOf(app, me.accountId, 'firewall_device_add')).length, 2);
      const allowed = await app.request('POST', URL, {
        token: user.token,
        body: firewallBody({ label: 'allowed', devices: { nodes: [c.id] } }),
      });
      assert.equal(allowed.status, 200);
      assert.deepEqual(await nodeFirewalls(app, c.id), [allowed.body.id]);
    });

    test('device create, list, view and delete, with their events; page sizes 25..500, at most 100 a page', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await createEmptyNode(app, { label: 'target' });
      const fw = await createFirewall(app, { label: 'guard' });
      const url = `${URL}/${fw.id}/devices`;
      const added = await app.request('POST', url, { body: { id: node.id, type: 'node' } });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      const device = added.body;
      assert.deepEqual(device.entity, {
        id: node.id,
        type: 'node',
        label: 'target',
        url: `/v4/node/instances/${node.id}`,
        parent_entity: null,
      });
      assert.deepEqual(Object.keys(device).sort(), ['created', 'entity', 'id', 'updated']);
      assert.deepEqual((await app.request('GET', `${url}/${device.id}`)).body, device);
      assert.deepEqual((await app.request('GET', url)).body, { data: [device], page: 1, pages: 1, results: 1 });
      const byId = await app.request('GET', url, { headers: { 'x-filter': JSON.stringify({ id: device.id + 1 }) } });
      assert.equal(byId.body.results, 0);
      assert.equal((await app.request('GET', `${url}?page_size=501`)).status, 400);
      assert.equal((await app.request('GET', `${url}?page_size=25`)).body.data.length, 1);
      const badFilter = await app.request('GET', url, { headers: { 'x-filter': '{"entity":1}' } });
      assert.deepEqual(fieldsOf(badFilter.body), ['X-Filter']);

      const twice = await app.request('POST', url, { body: { id: node.id, type: 'node' } });
      assert.equal(twice.status, 400);
      assert.deepEqual(fieldsOf(twice.body), ['id']);
      const stranger = await newAccount(app);
      const theirs = await createEmptyNode(app, {}, stranger.token);
      const foreign = await app.request('POST', url, { body: { id: theirs.id, type: 'node' } });
      assert.equal(foreign.status, 400);
      assert.deepEqual(fieldsOf(foreign.body), ['id']);
      const wrongType = await app.request('POST', url, { body: { id: node.id, type: 'nodebalancer' } });
      assert.deepEqual(fieldsOf(wrongType.body), ['type']);
      const other = await createFirewall(app);
      assert.equal(
        (await app.request('GET', `${URL}/${other.id}/devices/${device.id}`)).status,
        404,
        'a device of another firewall',
      );

      assert.equal((await app.request('DELETE', `${url}/${device.id}`)).status, 200);
      assert.equal((await app.request('GET', `${url}/${device.id}`)).status, 404);
      assert.equal((await app.request('DELETE', `${url}/${device.id}`)).status, 404);
      assert.deepEqual(await nodeFirewalls(app, node.id), []);
      const removed = await eventsOf(app, me.accountId, 'firewall_device_remove');
      assert.equal(removed.length, 1);
      assert.equal(removed[0]?.entity_id, fw.id);
      assert.deepEqual(JSON.parse(removed[0]?.secondary_entity ?? 'null'), {
        id: node.id,
        type: 'node',
        label: 'target',
        url: `/v4/node/instances/${node.id}`,
      });
    });

    test('a node holds one enabled firewall and any number of disabled ones', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const free = await createEmptyNode(app);
      const first = await createFirewall(app, { devices: { nodes: [node.id] } });

      const second = await app.request('POST', URL, {
        body: firewallBody({ label: 'second', devices: { nodes: [free.id, node.id] } }),
      });
      assert.equal(second.status, 400, 'a new firewall is enabled: not on a node that has an enabled one');
      assert.deepEqual(fieldsOf(second.body), ['devices.nodes[1]']);

      const other = await createFirewall(app, { devices: { nodes: [free.id] } });
      const enabledAdd = await app.request('POST', `${URL}/${other.id}/devices`, { body: { id: node.id, type: 'node' } });
      assert.equal(enabledAdd.status, 400, 'an enabled firewall is not added to a node that has an enabled one');
      assert.deepEqual(fieldsOf(enabledAdd.body), ['id']);

      await setStatus(app, other.id, 'disabled');
      const disabledAdd = await app.request('POST', `${URL}/${other.id}/devices`, { body: { id: node.id, type: 'node' } });
      assert.equal(disabledAdd.status, 200, 'a disabled firewall may join');
      const third = await createFirewall(app);
      await setStatus(app, third.id, 'disabled');
      assert.equal(
        (await app.request('POST', `${URL}/${third.id}/devices`, { body: { id: node.id, type: 'node' } })).status,
        200,
      );
      assert.deepEqual((await nodeFirewalls(app, node.id)).sort(), [first.id, other.id, third.id].sort());

      const enable = await app.request('PUT', `${URL}/${other.id}`, { body: { status: 'enabled' } });
      assert.equal(enable.status, 400, 'not while another enabled firewall is on one of its nodes');
      assert.deepEqual(fieldsOf(enable.body), ['status']);
      assert.equal((await app.request('GET', `${URL}/${other.id}`)).body.status, 'disabled');

      await setStatus(app, first.id, 'disabled');
      await setStatus(app, other.id, 'enabled');
      const back = await app.request('PUT', `${URL}/${first.id}`, { body: { status: 'enabled' } });
      assert.equal(back.status, 400);

      // Removing the enabled firewall from the node lets another one be enabled there.
      const devices = (await app.request('GET', `${URL}/${other.id}/devices`)).body.data;
      const onNode = devices.find((d: { entity: { id: number } }) => d.entity.id === node.id);
      assert.equal((await app.request('DELETE', `${URL}/${other.id}/devices/${onNode.id}`)).status, 200);
      await setStatus(app, first.id, 'enabled');
    });

    test('delete takes the firewall off every node; deleting a node removes its devices with events', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const a = await createEmptyNode(app, { label: 'gone-soon' });
      const b = await createEmptyNode(app);
      const fw = await createFirewall(app, { devices: { nodes: [a.id, b.id] } });
      const disabled = await createFirewall(app);
      await setStatus(app, disabled.id, 'disabled');
      const onA = await app.request('POST', `${URL}/${disabled.id}/devices`, { body: { id: a.id, type: 'node' } });
      assert.equal(onA.status, 200);

      assert.equal((await app.request('DELETE', `/v4/node/instances/${a.id}`)).status, 200);
      const left = (await app.request('GET', `${URL}/${fw.id}/devices`)).body.data;
      assert.deepEqual(
        left.map((d: { entity: { id: number } }) => d.entity.id),
        [b.id],
      );
      assert.equal((await app.request('GET', `${URL}/${disabled.id}/devices`)).body.results, 0);
      assert.equal((await app.request('GET', `${URL}/${disabled.id}`)).status, 200, 'the firewalls stay');
      const removed = await eventsOf(app, me.accountId, 'firewall_device_remove');
      assert.deepEqual(
        removed.map((e) => [e.entity_id, JSON.parse(e.secondary_entity ?? 'null').label]),
        [
          [fw.id, 'gone-soon'],
          [disabled.id, 'gone-soon'],
        ],
      );

      assert.equal((await app.request('DELETE', `${URL}/${fw.id}`)).status, 200);
      assert.deepEqual(await nodeFirewalls(app, b.id), []);
      const rows = await app.runtime.ctx.db.selectFrom('firewall_devices').selectAll().where('firewall_id', '=', fw.id).execute();
      assert.deepEqual(rows, [], 'no device of a deleted firewall remains');
      await setStatus(app, disabled.id, 'enabled');
    });
  });
}
