import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import {
  act,
  admin,
  badRequest,
  configsOf,
  disksOf,
  eventsOf,
  getNode,
  manualClock,
  ok,
  rootPassHash,
  runningNode,
  settle,
  startDue,
} from './helpers.ts';

const VLAN_CONFIG = [{ purpose: 'public' }, { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.1/24' }];

for (const dialect of DIALECTS) {
  describe(`rebuild, rescue and root password [${dialect}]`, () => {
    test('rebuild: disks and configs made again from the image, interfaces kept; rebuilding, then running', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await runningNode(app, { interfaces: VLAN_CONFIG });
      const oldDisks = (await disksOf(app, node.id)).map((d) => d.id);
      const oldHash = await rootPassHash(app, node.id);
      const res = ok(await act(app, node.id, 'rebuild', { image: 'node/alpine3.20', root_pass: 'n3w-r00t-pass' }), 'rebuild');
      assert.equal(res.body.status, 'rebuilding');
      assert.equal(res.body.image, 'node/alpine3.20');
      assert.equal(res.body.id, node.id);
      const disks = await disksOf(app, node.id);
      assert.deepEqual(
        disks.map((d) => [d.filesystem, d.size, d.status]),
        [
          ['ext4', 51200 - 512, 'not ready'],
          ['swap', 512, 'not ready'],
        ],
      );
      assert.ok(
        disks.every((d) => !oldDisks.includes(d.id)),
        'the old disks are gone',
      );
      const [config] = await configsOf(app, node.id);
      assert.deepEqual((await configsOf(app, node.id)).length, 1);
      const full = (await app.request('GET', `/v4/node/instances/${node.id}/configs/${config?.id}`)).body;
      const { purpose, label, ipam_address } = full.interfaces[1];
      assert.deepEqual({ purpose, label, ipam_address }, { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.1/24' });
      assert.notEqual(await rootPassHash(app, node.id), oldHash);
      badRequest(await act(app, node.id, 'reboot'), 'while rebuilding', undefined, /busy/i);
      await startDue(app);
      assert.equal((await eventsOf(app, me.accountId, 'node_rebuild'))[0]?.status, 'started');
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'running');
      assert.ok((await disksOf(app, node.id)).every((d) => d.status === 'ready'));
      assert.equal((await eventsOf(app, me.accountId, 'node_rebuild'))[0]?.status, 'finished');
      ok(await act(app, node.id, 'reboot'), 'boots the new config');

      await settle(app);
      ok(await act(app, node.id, 'rebuild', { image: 'node/debian12', root_pass: 'n3w-r00t-pass', booted: false }), 'rebuild');
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'offline', 'booted: false');
    });

    test('rebuild: image and root_pass are required and checked as for node creation', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const node = await runningNode(app);
      badRequest(await act(app, node.id, 'rebuild', { root_pass: 'n3w-r00t-pass' }), 'no image', 'image');
      badRequest(await act(app, node.id, 'rebuild', { image: 'node/debian12' }), 'no root_pass', 'root_pass');
      badRequest(
        await act(app, node.id, 'rebuild', { image: 'node/nope', root_pass: 'n3w-r00t-pass' }),
        'unknown image',
        'image',
      );
      badRequest(
        await act(app, node.id, 'rebuild', { image: 'node/debian12', root_pass: 'n3w-r00t-pass', authorized_keys: ['nonsense'] }),
        'bad key',
        'authorized_keys[0]',
      );
      const nano = await runningNode(app, { type: 'g6-nanode-1' });
      ok(await act(app, nano.id, 'shutdown'), 'shutdown');
      badRequest(
        await act(app, nano.id, 'rebuild', { image: 'node/debian12', root_pass: 'n3w-r00t-pass' }),
        'busy',
        undefined,
        /busy/i,
      );
      assert.equal((await act(app, 424242, 'rebuild', { image: 'node/debian12', root_pass: 'n3w-r00t-pass' })).status, 404);
    });

    test('rescue: rebooting into rescue mode, then running; the devices must be the node disks', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await runningNode(app);
      const other = await runningNode(app);
      const [foreign] = await disksOf(app, other.id);
      badRequest(
        await act(app, node.id, 'rescue', { devices: { sda: { disk_id: foreign?.id } } }),
        "another node's disk",
        'devices.sda.disk_id',
      );
      const [own] = await disksOf(app, node.id);
      badRequest(await act(app, node.id, 'rescue', { devices: { sda: { disk_id: 'one' } } }), 'not an id', 'devices.sda.disk_id');
      assert.equal((await getNode(app, node.id)).status, 'running', 'a refused rescue changes nothing');
      // sdh is no rescue device and sdz no slot at all: both ignored, and named.
      const rescued = ok(
        await act(app, node.id, 'rescue', { devices: { sdh: { disk_id: own?.id }, sdz: null } }),
        'rescue with slots it does not know',
      );
      assert.equal(rescued.headers.warning, '299 - "ignored unknown fields: devices.sdh, devices.sdz"');
      assert.equal((await getNode(app, node.id)).status, 'rebooting');
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'running');
      assert.equal((await eventsOf(app, me.accountId, 'node_reboot'))[0]?.status, 'finished');

      ok(await act(app, other.id, 'shutdown'), 'shutdown');
      await settle(app);
      const [disk] = await disksOf(app, other.id);
      ok(await act(app, other.id, 'rescue', { devices: { sda: { disk_id: disk?.id }, sdb: null } }), 'rescue an offline node');
      await settle(app);
      assert.equal((await getNode(app, other.id)).status, 'running');
      assert.equal((await eventsOf(app, me.accountId, 'node_boot')).at(-1)?.entity_id, other.id);
    });

    test('root password: the node must be offline; its one root disk takes the password (password_reset)', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await runningNode(app);
      badRequest(await act(app, node.id, 'password', { root_pass: 'n3w-r00t-pass' }), 'running', undefined, /shut/i);
      badRequest(await act(app, node.id, 'password', { root_pass: 'short' }), 'too short', 'root_pass');
      ok(await act(app, node.id, 'shutdown'), 'shutdown');
      await settle(app);
      const before = await rootPassHash(app, node.id);
      ok(await act(app, node.id, 'password', { root_pass: 'n3w-r00t-pass' }), 'reset');
      await settle(app);
      assert.notEqual(await rootPassHash(app, node.id), before);
      const [event] = await eventsOf(app, me.accountId, 'password_reset');
      assert.equal(event?.entity_id, node.id);
      assert.equal(event?.status, 'finished');

      const [main] = await disksOf(app, node.id);
      ok(
        await app.request('POST', `/v4/node/instances/${node.id}/disks/${main?.id}/resize`, { body: { size: 40000 } }),
        'shrink',
      );
      await settle(app);
      ok(await app.request('POST', `/v4/node/instances/${node.id}/disks`, { body: { size: 1024, filesystem: 'ext4' } }), 'disk');
      await settle(app);
      badRequest(await act(app, node.id, 'password', { root_pass: 'n3w-r00t-pass' }), 'two root disks', undefined, /several/);
    });
  });
}
