import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { act, admin, badRequest, eventsOf, getNode, manualClock, ok, runningNode, settle } from './helpers.ts';

async function addressRows(app: TestApp, nodeId: number) {
  return app.runtime.ctx.db
    .selectFrom('ip_addresses')
    .select(['address', 'region', 'type', 'public'])
    .where('node_id', '=', nodeId)
    .orderBy('address')
    .execute();
}

const VLAN_CONFIG = [{ purpose: 'public' }, { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.1/24' }];

for (const dialect of DIALECTS) {
  describe(`migrations [${dialect}]`, () => {
    test('within the region: migrating, then as it was; the node keeps its addresses (node_migrate)', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await runningNode(app);
      const before = await addressRows(app, node.id);
      ok(await act(app, node.id, 'migrate'), 'migrate without a body');
      assert.equal((await getNode(app, node.id)).status, 'migrating');
      badRequest(await act(app, node.id, 'migrate', {}), 'while migrating', undefined, /busy/i);
      await settle(app);
      const after = await getNode(app, node.id);
      assert.equal(after.status, 'running');
      assert.equal(after.region, 'us-east');
      assert.deepEqual(await addressRows(app, node.id), before);
      assert.equal((await eventsOf(app, me.accountId, 'node_migrate'))[0]?.status, 'finished');
      badRequest(await act(app, node.id, 'migrate', { upgrade: true }), 'upgrade without a region', 'upgrade');
    });

    test('to another region: new addresses from its pools, the old ones released, VLANs attached there', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await runningNode(app, { private_ip: true, interfaces: VLAN_CONFIG });
      const before = await addressRows(app, node.id);
      assert.equal(before.length, 3);
      badRequest(await act(app, node.id, 'migrate', { region: 'us-west' }), 'no VLANs in us-west', 'region', /VLAN/);
      ok(await act(app, node.id, 'migrate', { region: 'us-central' }), 'migrate');
      const during = await getNode(app, node.id);
      assert.equal(during.status, 'migrating');
      assert.equal(during.region, 'us-east', 'the region changes when the migration finishes');
      assert.equal((await eventsOf(app, me.accountId, 'node_migrate_datacenter_create'))[0]?.status, 'notification');
      await settle(app);
      const after = await getNode(app, node.id);
      assert.equal(after.status, 'running');
      assert.equal(after.region, 'us-central');
      assert.equal((await eventsOf(app, me.accountId, 'node_migrate_datacenter'))[0]?.status, 'finished');
      const rows = await addressRows(app, node.id);
      assert.equal(rows.length, 3, 'public and private IPv4 and SLAAC again');
      assert.ok(rows.every((r) => r.region === 'us-central'));
      const publicV4 = rows.find((r) => r.type === 'ipv4' && r.public === 1)?.address;
      assert.notEqual(publicV4, before.find((r) => r.type === 'ipv4' && r.public === 1)?.address);
      assert.deepEqual(after.ipv4[0], publicV4);
      assert.notEqual(after.ipv6, node.ipv6);
      const old = await app.runtime.ctx.db.selectFrom('ip_addresses').select('address').where('region', '=', 'us-east').execute();
      assert.equal(old.length, 0, 'the old addresses went back to their pools');
      const vlans = await app.runtime.ctx.db
        .selectFrom('vlans')
        .select(['label', 'region'])
        .where('region', '=', 'us-central')
        .execute();
      assert.deepEqual(
        vlans.map((v) => ({ ...v })),
        [{ label: 'backend', region: 'us-central' }],
      );
    });

    test('the region must exist, differ and take the type; upgrade needs a successor', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const node = await runningNode(app);
      badRequest(await act(app, node.id, 'migrate', { region: 'us-east' }), 'same region', 'region');
      badRequest(await act(app, node.id, 'migrate', { region: 'xx-nowhere' }), 'unknown region', 'region');
      badRequest(await act(app, node.id, 'migrate', { region: 'us-west', upgrade: true }), 'no successor', 'upgrade');
      const gpu = await runningNode(app, { type: 'g1-gpu-rtx6000-1' });
      badRequest(await act(app, gpu.id, 'migrate', { region: 'us-west' }), 'no GPUs there', 'type');

      const old = await runningNode(app, { type: 'g5-standard-1' });
      ok(await act(app, old.id, 'migrate', { region: 'us-west', upgrade: true }), 'migrate with an upgrade');
      await settle(app);
      const after = await getNode(app, old.id);
      assert.equal(after.region, 'us-west');
      assert.equal(after.type, 'g6-standard-1');
    });
  });
}
