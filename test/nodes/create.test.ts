import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CreateNode } from '../../src/domain/nodes/node.schema.ts';
import { createNodes } from '../../src/domain/nodes/node-create.service.ts';
import { authenticateToken } from '../../src/domain/profile/token.service.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { KEYS } from '../identity/helpers.ts';
import {
  catalogWith,
  createEmptyNode,
  createNode,
  deviceMap,
  eventsOf,
  getNode,
  IMAGE,
  nodeBody,
  privateImage,
  ROOT_PASS,
  settle,
} from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`node creation [${dialect}]`, () => {
    test('from an image: provisioning, then running through the job; two disks, a default config, addresses', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await createNode(app, { type: 'g6-standard-2', label: 'web-1' });
      assert.equal(node.status, 'provisioning');
      assert.equal(node.label, 'web-1');
      assert.equal(node.image, IMAGE);
      assert.equal(node.hypervisor, 'kvm');
      assert.deepEqual(node.specs, { disk: 81920, memory: 4096, vcpus: 2, transfer: 4000, gpus: 0, accelerated_devices: 0 });
      assert.equal(node.ipv4.length, 1);
      assert.match(node.ipv4[0], /^100\.6[4-7]\.\d+\.\d+$/);
      assert.match(node.ipv6, /^2001:db8:1:0:f03c:91ff:fe[0-9a-f]{2}:[0-9a-f]{1,4}\/128$/);
      assert.deepEqual(node.backups, {
        enabled: false,
        schedule: { day: null, window: null },
        last_successful: null,
        available: false,
      });
      assert.equal(node.watchdog_enabled, true);
      // Fields of later revisions, with what the service offers: one host a region, no placement
      // groups, clusters, user data, encryption, locks or maintenance choices.
      assert.equal(node.site_type, 'core');
      assert.match(node.host_uuid, /^[0-9a-f]{40}$/);
      assert.deepEqual(
        {
          has_user_data: node.has_user_data,
          placement_group: node.placement_group,
          disk_encryption: node.disk_encryption,
          lke_cluster_id: node.lke_cluster_id,
          capabilities: node.capabilities,
          interface_generation: node.interface_generation,
          maintenance_policy: node.maintenance_policy,
          locks: node.locks,
        },
        {
          has_user_data: false,
          placement_group: null,
          disk_encryption: 'disabled',
          lke_cluster_id: null,
          capabilities: [],
          interface_generation: 'legacy_config',
          maintenance_policy: 'node/migrate',
          locks: [],
        },
      );
      const gpu = await createNode(app, { type: 'g1-gpu-rtx6000-2', label: 'gpu-1' });
      assert.equal(gpu.specs.gpus, 2);

      const [created] = await eventsOf(app, me.accountId, 'node_create');
      assert.equal(created?.status, 'scheduled');
      assert.equal(created?.entity_id, node.id);

      const disks = (await app.request('GET', `/v4/node/instances/${node.id}/disks`)).body.data;
      assert.deepEqual(
        disks.map((d: { size: number; filesystem: string; status: string }) => [d.size, d.filesystem, d.status]),
        [
          [81920 - 512, 'ext4', 'not ready'],
          [512, 'swap', 'not ready'],
        ],
      );
      const configs = (await app.request('GET', `/v4/node/instances/${node.id}/configs`)).body.data;
      assert.equal(configs.length, 1);
      assert.equal(configs[0].label, 'My Debian 12 Disk Profile');
      assert.equal(configs[0].kernel, 'node/grub2');
      assert.deepEqual(configs[0].devices, deviceMap({ sda: disks[0].id, sdb: disks[1].id }));
      assert.deepEqual(configs[0].helpers, {
        updatedb_disabled: true,
        distro: true,
        modules_dep: true,
        network: true,
        devtmpfs_automount: true,
      });

      await settle(app);
      const running = await getNode(app, node.id);
      assert.equal(running.status, 'running');
      const ready = (await app.request('GET', `/v4/node/instances/${node.id}/disks`)).body.data;
      assert.deepEqual(
        ready.map((d: { status: string }) => d.status),
        ['ready', 'ready'],
      );
      const [finished] = await eventsOf(app, me.accountId, 'node_create');
      assert.equal(finished?.status, 'finished');
      assert.equal(finished?.percent_complete, 100);

      const row = await app.runtime.ctx.db
        .selectFrom('nodes')
        .select(['root_pass_hash', 'last_booted_config_id'])
        .where('id', '=', node.id)
        .executeTakeFirstOrThrow();
      assert.match(row.root_pass_hash ?? '', /^hmac-sha256\$/);
      assert.ok(!row.root_pass_hash?.includes(ROOT_PASS), 'only a hash of the root password is kept');
      assert.equal(row.last_booted_config_id, configs[0].id);
    });

    test('booted: false leaves the node offline after provisioning; swap_size sets the swap disk', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createNode(app, { booted: false, swap_size: 1024 });
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'offline');
      const disks = (await app.request('GET', `/v4/node/instances/${node.id}/disks`)).body.data;
      assert.deepEqual(
        disks.map((d: { size: number }) => d.size),
        [51200 - 1024, 1024],
      );
      const tooMuchSwap = await app.request('POST', '/v4/node/instances', {
        body: nodeBody({ type: 'g6-nanode-1', swap_size: 25000 }),
      });
      assert.equal(tooMuchSwap.status, 400);
      assert.equal(tooMuchSwap.body.errors[0].field, 'swap_size');
    });

    test('an empty node is offline at once, with no disks or configs and a finished event', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await createEmptyNode(app, { booted: true, swap_size: 99999 });
      assert.equal(node.status, 'offline');
      assert.equal(node.image, null);
      assert.match(node.label, new RegExp(`^node-us-east-${node.id}$`));
      for (const what of ['disks', 'configs']) {
        const res = await app.request('GET', `/v4/node/instances/${node.id}/${what}`);
        assert.equal(res.body.results, 0, what);
      }
      const [event] = await eventsOf(app, me.accountId, 'node_create');
      assert.equal(event?.status, 'finished');
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'offline');
      const interfaces = await app.request('POST', '/v4/node/instances', {
        body: nodeBody({ image: undefined, root_pass: undefined, interfaces: [{ purpose: 'public' }] }),
      });
      assert.equal(interfaces.status, 400);
      assert.equal(interfaces.body.errors[0].field, 'interfaces');
    });

    test('region and type must exist; a region with an outage refuses creation', async (t) => {
      const catalogPath = catalogWith(t, (data) => {
        const region = data.regions.find((r) => r.id === 'eu-west');
        if (region) region.status = 'outage';
      });
      const app = await buildTestApp(t, { dialect, config: { catalogPath } });
      const cases: [Record<string, unknown>, string][] = [
        [{ region: 'xx-nowhere' }, 'region'],
        [{ type: 'g0-huge-1' }, 'type'],
        [{ type: 'g1-gpu-rtx6000-1', region: 'us-central' }, 'type'],
        [{ region: 'eu-west' }, 'region'],
        [{ region: undefined }, 'region'],
        [{ type: undefined }, 'type'],
      ];
      for (const [overrides, field] of cases) {
        const res = await app.request('POST', '/v4/node/instances', { body: nodeBody(overrides) });
        assert.equal(res.status, 400, JSON.stringify(overrides));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      const outage = await app.request('POST', '/v4/node/instances', { body: nodeBody({ region: 'eu-west' }) });
      assert.match(outage.body.errors[0].reason, /outage/);
      assert.equal((await app.request('GET', '/v4/node/instances')).body.results, 0, 'nothing was created');
    });

    test('labels: 3..32, a letter first, no two of - _ . in a row, unique in the account; defaults are unique', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const label of ['ab', 'x'.repeat(33), '1abc', '-abc', 'a--b', 'a_.b', 'a..b', 'has space', 'ünï']) {
        const res = await app.request('POST', '/v4/node/instances', { body: nodeBody({ label }) });
        assert.equal(res.status, 400, label);
        assert.equal(res.body.errors[0].field, 'label', label);
      }
      for (const label of ['abc', 'a-b_c.d', 'Web.01-x', `a${'b'.repeat(31)}`]) {
        const node = await createEmptyNode(app, { label });
        assert.equal(node.label, label);
      }
      const clash = await app.request('POST', '/v4/node/instances', { body: nodeBody({ label: 'abc' }) });
      assert.equal(clash.status, 400);
      assert.deepEqual(clash.body.errors[0].field, 'label');
      const other = await newAccount(app);
      assert.equal(
        (await createEmptyNode(app, { label: 'abc' }, other.token)).label,
        'abc',
        'labels are unique per account only',
      );

      // A user label equal to the next default does not make the default clash.
      const next = (await createEmptyNode(app)).id + 1;
      await createEmptyNode(app, { label: `debian-us-east-${next}` });
      const defaulted = await createNode(app);
      assert.equal(defaulted.id, next + 1);
      const labels = (await app.request('GET', '/v4/node/instances')).body.data.map((n: { label: string }) => n.label);
      assert.equal(new Set(labels).size, labels.length);
      assert.equal(defaulted.label, `debian-us-east-${defaulted.id}`);
    });

    test('images: root_pass required (7..128); unknown, unavailable or foreign images refused; own private images deploy', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const other = await newAccount(app);
      const cases: [Record<string, unknown>, string][] = [
        [{ root_pass: undefined }, 'root_pass'],
        [{ root_pass: 'short' }, 'root_pass'],
        [{ root_pass: 'x'.repeat(129) }, 'root_pass'],
        [{ image: 'node/nonexistent' }, 'image'],
        [{ image: await privateImage(app, other.accountId) }, 'image'],
        [{ image: await privateImage(app, me.accountId, { status: 'creating' }) }, 'image'],
        [{ image: await privateImage(app, me.accountId, { size: 60000 }) }, 'type'],
      ];
      for (const [overrides, field] of cases) {
        const res = await app.request('POST', '/v4/node/instances', { body: nodeBody(overrides) });
        assert.equal(res.status, 400, JSON.stringify(overrides));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      const image = await privateImage(app, me.accountId);
      const node = await createNode(app, { image });
      assert.equal(node.image, image);
      assert.match(node.label, /^debian-us-east-\d+$/);
    });

    test('tags need an unrestricted user; a restricted user needs add_nodes and gets read_write on its node', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const tagged = await createEmptyNode(app, { tags: ['prod', 'web', 'prod'] });
      assert.deepEqual(tagged.tags, ['prod', 'web']);

      const bob = await newUser(app, me.accountId, { restricted: true });
      const refused = await app.request('POST', '/v4/node/instances', { token: bob.token, body: nodeBody() });
      assert.equal(refused.status, 403, 'no add_nodes grant');
      await app.request('PUT', `/v4/account/users/${bob.username}/grants`, { body: { global: { add_nodes: true } } });
      const withTags = await app.request('POST', '/v4/node/instances', { token: bob.token, body: nodeBody({ tags: ['mine'] }) });
      assert.equal(withTags.status, 403);
      const node = await createNode(app, {}, bob.token);
      assert.equal((await getNode(app, node.id, bob.token)).id, node.id);
      const grants = await app.request('GET', `/v4/account/users/${bob.username}/grants`);
      assert.deepEqual(
        grants.body.node.filter((g: { permissions: string | null }) => g.permissions),
        [{ id: node.id, label: node.label, permissions: 'read_write' }],
      );
      const list = await app.request('GET', '/v4/node/instances', { token: bob.token });
      assert.deepEqual(
        list.body.data.map((n: { id: number }) => n.id),
        [node.id],
      );
    });

    test('authorized_keys must be public keys; authorized_users must be users of the account with a profile key', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const keyless = await newUser(app, me.accountId);
      const stranger = await newAccount(app);
      await app.request('POST', '/v4/profile/sshkeys', { body: { label: 'laptop', ssh_key: KEYS.ed25519 } });
      const cases: [Record<string, unknown>, string][] = [
        [{ authorized_keys: [KEYS.rsa, 'ssh-rsa not-base64!'] }, 'authorized_keys[1]'],
        // One key an entry: a line break would write a second line (a second key) into authorized_keys.
        [{ authorized_keys: [`${KEYS.rsa}\n${KEYS.ed25519}`] }, 'authorized_keys[0]'],
        [{ authorized_users: ['admin', 'nobody-here'] }, 'authorized_users[1]'],
        [{ authorized_users: [keyless.username] }, 'authorized_users[0]'],
        [{ authorized_users: [stranger.username] }, 'authorized_users[0]'],
      ];
      for (const [overrides, field] of cases) {
        const res = await app.request('POST', '/v4/node/instances', { body: nodeBody(overrides) });
        assert.equal(res.status, 400, JSON.stringify(overrides));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      assert.equal((await app.request('GET', '/v4/node/instances')).body.results, 0, 'nothing made');
      await createNode(app, { authorized_keys: [KEYS.rsa, `${KEYS.ecdsa}\n`], authorized_users: ['admin'] });
    });

    test('the answer to a create is the node as a read then shows it: tags, addresses, backups, a default label', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const answers = [
        await createNode(app, { tags: ['zeta', 'Alpha', 'ünïcode', 'quote"d', 'zeta'], private_ip: true }),
        await createNode(app, { label: undefined, backups_enabled: true, tags: ['one'] }),
        await createNode(app, { swap_size: 0, booted: false }),
        await createEmptyNode(app, { tags: ['empty'] }),
        await createEmptyNode(app, { label: undefined, region: 'eu-west' }),
      ];
      for (const answer of answers) {
        const read = await getNode(app, answer.id);
        assert.deepEqual(answer, read, `node ${answer.label}`);
      }
      assert.equal(answers[0].tags.length, 4, 'a repeated tag once');
      assert.equal(answers[0].ipv4.length, 2);
      assert.equal(answers[1].backups.enabled, true);
    });

    test('private_ip adds a private IPv4 address after the public one', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createNode(app, { private_ip: true });
      assert.equal(node.ipv4.length, 2);
      assert.match(node.ipv4[0], /^100\./);
      assert.match(node.ipv4[1], /^192\.168\.(1(2[89]|[3-9]\d)|2\d\d)\.\d+$/);
    });

    test('interfaces: up to 3; VLANs need a region that has them, and are created once per label', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const interfaces = [
        { purpose: 'public', label: '', ipam_address: '' },
        { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.1/24' },
      ];
      const node = await createNode(app, { interfaces });
      const [config] = (await app.request('GET', `/v4/node/instances/${node.id}/configs`)).body.data;
      assert.deepEqual(
        config.interfaces.map((i: Record<string, unknown>) => ({
          purpose: i.purpose,
          label: i.label,
          ipam_address: i.ipam_address,
        })),
        [
          { purpose: 'public', label: null, ipam_address: null },
          { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.1/24' },
        ],
      );
      await createNode(app, { interfaces: [{ purpose: 'vlan', label: 'backend' }] });
      const vlans = await app.runtime.ctx.db.selectFrom('vlans').selectAll().where('account_id', '=', me.accountId).execute();
      assert.deepEqual(
        vlans.map((v) => [v.label, v.region]),
        [['backend', 'us-east']],
      );

      const cases: [unknown[], string, string?][] = [
        [[{ purpose: 'vlan', label: 'backend' }], 'interfaces[0].purpose', 'us-west'],
        [[{ purpose: 'public' }, { purpose: 'public' }], 'interfaces[1].purpose'],
        [[{ purpose: 'public', label: 'x' }], 'interfaces[0].label'],
        [[{ purpose: 'vlan' }], 'interfaces[0].label'],
        [[{ purpose: 'vlan', label: 'bad label' }], 'interfaces[0].label'],
        [[{ purpose: 'vlan', label: 'a', ipam_address: '10.0.0.1' }], 'interfaces[0].ipam_address'],
        [
          [
            { purpose: 'vlan', label: 'a' },
            { purpose: 'vlan', label: 'a' },
          ],
          'interfaces[1].label',
        ],
        [[{ purpose: 'other' }], 'interfaces[0].purpose'],
        [
          [
            { purpose: 'public' },
            { purpose: 'vlan', label: 'a' },
            { purpose: 'vlan', label: 'b' },
            { purpose: 'vlan', label: 'c' },
          ],
          'interfaces',
        ],
      ];
      for (const [list, field, region] of cases) {
        const res = await app.request('POST', '/v4/node/instances', {
          body: nodeBody({ interfaces: list, region: region ?? 'us-east' }),
        });
        assert.equal(res.status, 400, JSON.stringify(list));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
    });

    test('from a StackScript: a compatible image and root_pass are needed; the deployment is counted', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const script = await app.request('POST', '/v4/node/stackscripts', {
        body: { label: 'setup', script: '#!/bin/bash\n# <UDF name="db" label="Database name" />\necho hi\n', images: [IMAGE] },
      });
      assert.equal(script.status, 200, JSON.stringify(script.body));
      const id = script.body.id;
      const cases: [Record<string, unknown>, string][] = [
        [{ stackscript_id: id, image: undefined, stackscript_data: { db: 'x' } }, 'image'],
        [{ stackscript_id: id, image: 'node/ubuntu24.04', stackscript_data: { db: 'x' } }, 'image'],
        [{ stackscript_id: id, root_pass: undefined, stackscript_data: { db: 'x' } }, 'root_pass'],
        [{ stackscript_id: 999999, stackscript_data: { db: 'x' } }, 'stackscript_id'],
      ];
      for (const [overrides, field] of cases) {
        const res = await app.request('POST', '/v4/node/instances', { body: nodeBody(overrides) });
        assert.equal(res.status, 400, JSON.stringify(overrides));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      const noData = await app.request('POST', '/v4/node/instances', { body: nodeBody({ stackscript_id: id }) });
      assert.equal(noData.status, 400);
      assert.match(noData.body.errors[0].field, /^stackscript_data/);

      const node = await createNode(app, { stackscript_id: id, stackscript_data: { db: 'shop' } });
      assert.equal(node.status, 'provisioning');
      await settle(app);
      assert.equal((await getNode(app, node.id)).status, 'running');
      const counted = await app.request('GET', `/v4/node/stackscripts/${id}`);
      assert.equal(counted.body.deployments_total, 1);
      assert.equal(counted.body.deployments_active, 1);
      await app.request('DELETE', `/v4/node/instances/${node.id}`);
      assert.equal((await app.request('GET', `/v4/node/stackscripts/${id}`)).body.deployments_active, 0);
    });

    test('a backup_id that names no backup of the account is refused, naming the field', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('POST', '/v4/node/instances', {
        body: { region: 'us-east', type: 'g6-nanode-1', backup_id: 1 },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].field, 'backup_id');
    });

    test('the bulk path writes nodes as creation does, in one transaction: all of them or none', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      const principal = await authenticateToken(ctx, (await admin(app)).token);
      assert.ok(principal);
      const rows = await createNodes(ctx, principal, [
        nodeBody({ label: 'bulk-1', tags: ['bulk'] }) as CreateNode,
        nodeBody({ label: 'bulk-2', region: 'eu-west' }) as CreateNode,
      ]);
      assert.deepEqual(
        rows.map((r) => r.label),
        ['bulk-1', 'bulk-2'],
      );
      const viaApi = await createNode(app, { label: 'single', tags: ['bulk'] });
      const bulk = await getNode(app, rows[0]?.id ?? 0);
      const comparable = (n: Record<string, unknown>) => ({
        ...n,
        id: 0,
        label: '',
        ipv4: [],
        ipv6: '',
        created: '',
        updated: '',
      });
      assert.deepEqual(comparable(bulk), comparable(viaApi));
      const disks = (await app.request('GET', `/v4/node/instances/${rows[1]?.id}/disks`)).body.data;
      assert.equal(disks.length, 2);
      await settle(app);
      assert.equal((await getNode(app, rows[1]?.id ?? 0)).status, 'running');

      const before = (await app.request('GET', '/v4/node/instances')).body.results;
      await assert.rejects(
        createNodes(ctx, principal, [nodeBody({ label: 'bulk-3' }) as CreateNode, nodeBody({ label: 'bulk-1' }) as CreateNode]),
        (err: { errors?: { field?: string }[] }) => err.errors?.[0]?.field === 'label',
      );
      assert.equal((await app.request('GET', '/v4/node/instances')).body.results, before, 'none of the batch is written');
    });
  });
}
