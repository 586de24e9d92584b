import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { createEmptyNode, deviceMap, eventsOf, runningNode } from './helpers.ts';

/** What a config's interface shows of the VPC fields of later revisions: none is offered. */
const LATER_FIELDS = { active: false, vpc_id: null, subnet_id: null, ipv4: null, ip_ranges: null, ipv6: null };

for (const dialect of DIALECTS) {
  describe(`node config profiles [${dialect}]`, () => {
    test('create, view, list, update and delete, each with its event', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await runningNode(app);
      const base = `/v4/node/instances/${node.id}/configs`;
      const disks = (await app.request('GET', `/v4/node/instances/${node.id}/disks`)).body.data;

      const created = await app.request('POST', base, {
        body: {
          label: 'rescue',
          devices: { sda: { disk_id: disks[1].id, volume_id: null }, sdb: null },
          kernel: 'node/latest-32bit',
          comments: 'for emergencies',
          memory_limit: 1024,
          run_level: 'single',
          virt_mode: 'fullvirt',
          helpers: { network: false },
          root_device: '/dev/sdb',
          interfaces: [
            { purpose: 'public', primary: true },
            { purpose: 'vlan', label: 'lan-1', ipam_address: '10.1.0.2/16' },
          ],
        },
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const config = created.body;
      assert.deepEqual(config, {
        id: config.id,
        label: 'rescue',
        kernel: 'node/latest-32bit',
        comments: 'for emergencies',
        memory_limit: 1024,
        run_level: 'single',
        virt_mode: 'fullvirt',
        // With the fields of later revisions: ids by position, in use only once the node runs this config.
        interfaces: [
          { ...LATER_FIELDS, id: config.id * 3 + 1, purpose: 'public', label: null, ipam_address: null, primary: true },
          {
            ...LATER_FIELDS,
            id: config.id * 3 + 2,
            purpose: 'vlan',
            label: 'lan-1',
            ipam_address: '10.1.0.2/16',
            primary: false,
          },
        ],
        helpers: { updatedb_disabled: true, distro: true, modules_dep: true, network: false, devtmpfs_automount: true },
        devices: deviceMap({ sda: disks[1].id }),
        root_device: '/dev/sdb',
        initrd: null,
        created: config.created,
        updated: config.created,
      });
      assert.match(config.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      assert.deepEqual((await app.request('GET', `${base}/${config.id}`)).body, config);
      const listed = await app.request('GET', base, { headers: { 'x-filter': JSON.stringify({ label: 'rescue' }) } });
      assert.deepEqual(listed.body.data, [config]);
      assert.equal((await app.request('GET', base)).body.results, 2);

      const updated = await app.request('PUT', `${base}/${config.id}`, {
        body: { label: 'rescue-2', helpers: { distro: false }, devices: { sdc: { disk_id: disks[0].id } }, interfaces: [] },
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.body.label, 'rescue-2');
      assert.equal(updated.body.kernel, 'node/latest-32bit', 'fields left out stay');
      assert.deepEqual(updated.body.helpers, {
        updatedb_disabled: true,
        distro: false,
        modules_dep: true,
        network: false,
        devtmpfs_automount: true,
      });
      assert.deepEqual(updated.body.devices, deviceMap({ sdc: disks[0].id }));
      assert.deepEqual(updated.body.interfaces, []);
      const cleared = await app.request('PUT', `${base}/${config.id}`, { body: { comments: null } });
      assert.equal(cleared.body.comments, '', 'no comments read as "", never null');

      assert.equal((await app.request('DELETE', `${base}/${config.id}`)).status, 200);
      assert.equal((await app.request('GET', `${base}/${config.id}`)).status, 404);
      for (const action of ['node_config_create', 'node_config_update', 'node_config_delete']) {
        const [event] = await eventsOf(app, me.accountId, action);
        assert.equal(event?.entity_id, node.id, action);
        assert.deepEqual(
          JSON.parse(event?.secondary_entity ?? '{}'),
          {
            id: config.id,
            type: 'node_config',
            label: action === 'node_config_create' ? 'rescue' : 'rescue-2',
            url: `/v4/node/instances/${node.id}/configs/${config.id}`,
          },
          action,
        );
        assert.equal(event?.status, 'notification', action);
      }
      const vlans = await app.runtime.ctx.db.selectFrom('vlans').select('label').where('account_id', '=', me.accountId).execute();
      assert.deepEqual(
        vlans.map((v) => v.label),
        ['lan-1'],
      );
      // The config the running node booted has its interfaces in use.
      const booted = (await app.request('GET', base)).body.data.find((c: { id: number }) => c.id !== config.id);
      const inUse = await app.request('PUT', `${base}/${booted.id}`, { body: { interfaces: [{ purpose: 'public' }] } });
      assert.deepEqual(
        [inUse.body.interfaces[0].id, inUse.body.interfaces[0].active, inUse.body.interfaces[0].primary],
        [booted.id * 3 + 1, true, false],
      );
    });

    test('devices name the node own disks; kernels come from the catalog; labels and interfaces are checked', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await runningNode(app);
      const other = await runningNode(app);
      const [foreignDisk] = (await app.request('GET', `/v4/node/instances/${other.id}/disks`)).body.data;
      const base = `/v4/node/instances/${node.id}/configs`;
      const cases: [Record<string, unknown>, string][] = [
        [{ devices: {} }, 'label'],
        [{ label: 'x' }, 'devices'],
        [{ label: 'x'.repeat(49), devices: {} }, 'label'],
        [{ label: 'x', devices: { sda: { disk_id: foreignDisk.id } } }, 'devices.sda.disk_id'],
        [{ label: 'x', devices: { sdb: { volume_id: 5 } } }, 'devices.sdb.volume_id'],
        [{ label: 'x', devices: {}, kernel: 'node/no-such-kernel' }, 'kernel'],
        [{ label: 'x', devices: {}, run_level: 'multi' }, 'run_level'],
        [{ label: 'x', devices: {}, root_device: '/dev/sda; rm' }, 'root_device'],
        [{ label: 'x', devices: {}, interfaces: [{ purpose: 'vlan' }] }, 'interfaces[0].label'],
        [{ label: 'x', devices: {}, interfaces: [{ purpose: 'vlan', label: 'lan', primary: true }] }, 'interfaces[0].primary'],
        [{ label: 'x', devices: { sdz: { disk_id: node.id }, sda: { disk_id: 'one' } } }, 'devices.sda.disk_id'],
      ];
      for (const [body, field] of cases) {
        const res = await app.request('POST', base, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      const [config] = (await app.request('GET', base)).body.data;
      assert.equal((await app.request('GET', base)).body.results, 1, 'no refused config was saved');
      const put = await app.request('PUT', `${base}/${config.id}`, { body: { kernel: 'node/nope' } });
      assert.equal(put.status, 400);
      // Slots and keys the API does not know are ignored and named; the config keeps its devices.
      const unknownSlot = await app.request('PUT', `${base}/${config.id}`, {
        body: { devices: { ...config.devices, sdz: null, a: 1, sda: { ...config.devices.sda, disk: 1 } } },
      });
      assert.equal(unknownSlot.status, 200, JSON.stringify(unknownSlot.body));
      assert.equal(unknownSlot.headers.warning, '299 - "ignored unknown fields: devices.sda.disk, devices.sdz, devices.a"');
      assert.deepEqual(
        (await app.request('GET', `${base}/${config.id}`)).body.devices,
        config.devices,
        'the config kept its devices',
      );
      assert.equal((await app.request('GET', `/v4/node/instances/${other.id}/configs/${config.id}`)).status, 404);
    });

    test('VLAN interfaces need a region that offers VLANs', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app, { region: 'us-west' });
      const res = await app.request('POST', `/v4/node/instances/${node.id}/configs`, {
        body: { label: 'lan', devices: {}, interfaces: [{ purpose: 'vlan', label: 'lan' }] },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].field, 'interfaces[0].purpose');
    });
  });
}
