import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import {
  act,
  admin,
  badRequest,
  createEmptyNode,
  eventsOf,
  getNode,
  layoutOf,
  manualClock,
  newAccount,
  newUser,
  ok,
  rootPassHash,
  runningNode,
  settle,
  startDue,
} from './helpers.ts';

/** A running node (with a second config, booted last) and a successful snapshot of it. */
async function nodeWithSnapshot(app: TestApp, token?: string) {
  const node = await runningNode(app, {}, token);
  const disks = ok(await app.request('GET', `/v4/node/instances/${node.id}/disks`, token ? { token } : {}), 'disks').body.data;
  const config = ok(
    await app.request('POST', `/v4/node/instances/${node.id}/configs`, {
      body: {
        label: 'rescue-ish',
        kernel: 'node/latest-64bit',
        devices: { sda: { disk_id: disks[1].id }, sdb: { disk_id: disks[0].id } },
      },
      ...(token ? { token } : {}),
    }),
    'second config',
  ).body;
  ok(await act(app, node.id, 'backups/enable', undefined, token), 'enable');
  ok(await act(app, node.id, 'reboot', { config_id: config.id }, token), 'reboot into the second config');
  await settle(app);
  const snapshot = ok(await act(app, node.id, 'backups', { label: 'golden' }, token), 'snapshot').body;
  await settle(app);
  return { node, backupId: snapshot.id as number, bootConfig: config.id as number };
}

function restore(app: TestApp, nodeId: number, backupId: number, body: unknown, token?: string) {
  return act(app, nodeId, `backups/${backupId}/restore`, body, token);
}

for (const dialect of DIALECTS) {
  describe(`restoring backups [${dialect}]`, () => {
    test('overwrite replaces the target disks and configs; the target is restoring, then offline', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const { node, backupId } = await nodeWithSnapshot(app);
      const target = await runningNode(app, { image: 'node/alpine3.20', root_pass: 'an0ther-pass' });
      assert.notDeepEqual(await layoutOf(app, target.id), await layoutOf(app, node.id));

      const res = ok(await restore(app, node.id, backupId, { node_id: target.id, overwrite: true }), 'restore');
      assert.deepEqual(res.body, {});
      assert.equal((await getNode(app, target.id)).status, 'restoring');
      badRequest(await act(app, target.id, 'shutdown'), 'shutdown while restoring', undefined, /busy/i);
      await startDue(app);
      const [event] = await eventsOf(app, me.accountId, 'backups_restore');
      assert.equal(event?.entity_id, target.id);
      assert.equal(event?.status, 'started');
      await settle(app);
      const restored = await getNode(app, target.id);
      assert.equal(restored.status, 'offline');
      assert.equal(restored.image, 'node/debian12');
      assert.deepEqual(await layoutOf(app, target.id), await layoutOf(app, node.id));
      assert.equal(await rootPassHash(app, target.id), await rootPassHash(app, node.id));
      assert.equal((await eventsOf(app, me.accountId, 'backups_restore'))[0]?.status, 'finished');
      ok(await act(app, target.id, 'boot'), 'the restored node boots');
      await settle(app);
      assert.equal((await getNode(app, target.id)).status, 'running');
    });

    test('without overwrite the backup goes beside what the target holds, if it fits (400 about insufficient space otherwise)', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const { node, backupId } = await nodeWithSnapshot(app);
      const full = await runningNode(app);
      badRequest(
        await restore(app, node.id, backupId, { node_id: full.id, overwrite: false }),
        'no room',
        undefined,
        /insufficient/i,
      );
      badRequest(
        await restore(app, node.id, backupId, { node_id: full.id }),
        'overwrite defaults to false',
        undefined,
        /insufficient/i,
      );
      assert.equal((await getNode(app, full.id)).status, 'running', 'a refused restore changes nothing');

      const roomy = await createEmptyNode(app, { type: 'g6-standard-2' });
      ok(await restore(app, node.id, backupId, { node_id: roomy.id, overwrite: false }), 'restore beside');
      await settle(app);
      assert.deepEqual(await layoutOf(app, roomy.id), await layoutOf(app, node.id));
      badRequest(
        await restore(app, node.id, backupId, { node_id: roomy.id }),
        'a second copy does not fit',
        undefined,
        /insufficient/i,
      );
    });

    test('the backup must be successful and the target a node the caller may change', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const { node } = await nodeWithSnapshot(app);
      const target = await createEmptyNode(app, { type: 'g6-standard-2' });
      const pending = ok(await act(app, node.id, 'backups', { label: 'pending' }), 'snapshot').body;
      badRequest(await restore(app, node.id, pending.id, { node_id: target.id }), 'a pending backup', undefined, /successful/);
      await settle(app);
      const backupId = pending.id;

      const other = await newAccount(app);
      const theirs = await createEmptyNode(app, { type: 'g6-standard-2' }, other.token);
      badRequest(await restore(app, node.id, backupId, { node_id: theirs.id }), "another account's node", 'node_id');
      badRequest(await restore(app, node.id, backupId, { node_id: 999999 }), 'no such node', 'node_id');
      assert.equal((await restore(app, node.id, 999999, { node_id: target.id })).status, 404, 'no such backup');
      assert.equal((await restore(app, target.id, backupId, { node_id: target.id })).status, 404, 'a backup of another node');
      badRequest(await restore(app, node.id, backupId, {}), 'node_id is required', 'node_id');

      const bob = await newUser(app, me.accountId, { restricted: true });
      const grants = {
        node: [
          { id: node.id, permissions: 'read_write' },
          { id: target.id, permissions: 'read_only' },
        ],
      };
      ok(await app.request('PUT', `/v4/account/users/${bob.username}/grants`, { body: grants }), 'grants');
      assert.equal((await restore(app, node.id, backupId, { node_id: target.id }, bob.token)).status, 403, 'read_only target');
      const mine = await newUser(app, me.accountId, { restricted: true });
      const only = { node: [{ id: node.id, permissions: 'read_write' }] };
      ok(await app.request('PUT', `/v4/account/users/${mine.username}/grants`, { body: only }), 'grants');
      badRequest(await restore(app, node.id, backupId, { node_id: target.id }, mine.token), 'target without a grant', 'node_id');
      const reader = await newUser(app, me.accountId, { restricted: true });
      const readSource = {
        node: [
          { id: node.id, permissions: 'read_only' },
          { id: target.id, permissions: 'read_write' },
        ],
      };
      ok(await app.request('PUT', `/v4/account/users/${reader.username}/grants`, { body: readSource }), 'grants');
      assert.equal((await restore(app, node.id, backupId, { node_id: target.id }, reader.token)).status, 403, 'read_only source');
      assert.equal((await getNode(app, target.id)).status, 'offline', 'refused restores change nothing');
    });
  });

  describe(`creating a node from a backup [${dialect}]`, () => {
    test('the new node has the backed-up disks, configs and root password, boots the config booted last, and runs', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const { node, backupId } = await nodeWithSnapshot(app);
      const res = await app.request('POST', '/v4/node/instances', {
        body: { region: 'us-east', type: 'g6-standard-1', backup_id: backupId, label: 'from-backup' },
      });
      ok(res, 'create from backup');
      assert.equal(res.body.status, 'provisioning');
      assert.equal(res.body.image, null);
      await settle(app);
      const made = await getNode(app, res.body.id);
      assert.equal(made.status, 'running');
      assert.deepEqual(await layoutOf(app, made.id), await layoutOf(app, node.id));
      assert.equal(await rootPassHash(app, made.id), await rootPassHash(app, node.id));
      const disks = (await app.request('GET', `/v4/node/instances/${made.id}/disks`)).body.data;
      assert.ok(disks.every((d: { status: string }) => d.status === 'ready'));
      const row = await app.runtime.ctx.db
        .selectFrom('configs')
        .select(['id', 'label'])
        .where('node_id', '=', made.id)
        .orderBy('id')
        .execute();
      const booted = await app.runtime.ctx.db
        .selectFrom('nodes')
        .select('last_booted_config_id')
        .where('id', '=', made.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.find((c) => c.id === booted.last_booted_config_id)?.label, 'rescue-ish');
    });

    test('backup_id must name a successful backup the caller may read, and the type must have room (400)', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const { node, backupId } = await nodeWithSnapshot(app);
      const create = (body: Record<string, unknown>, token?: string) =>
        app.request('POST', '/v4/node/instances', {
          body: { region: 'us-east', type: 'g6-standard-1', ...body },
          ...(token ? { token } : {}),
        });
      badRequest(await create({ backup_id: backupId, type: 'g6-nanode-1' }), 'too small a type', 'type');
      badRequest(await create({ backup_id: 424242 }), 'no such backup', 'backup_id');
      badRequest(await create({ backup_id: backupId, image: 'node/debian12', root_pass: 'r00t-pass-x' }), 'both', 'backup_id');

      const other = await newAccount(app);
      badRequest(await create({ backup_id: backupId }, other.token), "another account's backup", 'backup_id');

      const bob = await newUser(app, me.accountId, { restricted: true });
      ok(
        await app.request('PUT', `/v4/account/users/${bob.username}/grants`, { body: { global: { add_nodes: true } } }),
        'grant',
      );
      badRequest(await create({ backup_id: backupId }, bob.token), 'no grant on the backed-up node', 'backup_id');
      const readOnly = { node: [{ id: node.id, permissions: 'read_only' }] };
      ok(await app.request('PUT', `/v4/account/users/${bob.username}/grants`, { body: readOnly }), 'grant');
      const refused = await create({ backup_id: backupId }, bob.token);
      assert.equal(refused.status, 403, `reading the backed-up node is not enough: ${JSON.stringify(refused.body)}`);
      const readWrite = { node: [{ id: node.id, permissions: 'read_write' }] };
      ok(await app.request('PUT', `/v4/account/users/${bob.username}/grants`, { body: readWrite }), 'grant');
      ok(await create({ backup_id: backupId }, bob.token), 'read_write on the backed-up node');

      const pending = ok(await act(app, node.id, 'backups', { label: 'pending' }), 'snapshot').body;
      badRequest(await create({ backup_id: pending.id }), 'a pending backup', 'backup_id');
    });

    test("the new node goes to the backup's region (400 naming region otherwise), and nothing is written", async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const { backupId } = await nodeWithSnapshot(app);
      const before = (await app.request('GET', '/v4/node/instances')).body.results;
      const res = await app.request('POST', '/v4/node/instances', {
        body: { region: 'eu-west', type: 'g6-standard-1', backup_id: backupId },
      });
      badRequest(res, 'a us-east backup deployed to eu-west', 'region', /us-east/);
      assert.equal((await app.request('GET', '/v4/node/instances')).body.results, before, 'no node was made');
    });
  });
}
