import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NODE_STATUSES } from '../../src/domain/nodes/node.schema.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { act, admin, badRequest, disksOf, eventsOf, getNode, manualClock, ok, runningNode, settle, startDue } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`resize and mutate [${dialect}]`, () => {
    test('resize: migrating (the reference has no resizing status) while it runs, then the new type and specs', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await runningNode(app);
      ok(await act(app, node.id, 'resize', { type: 'g6-standard-2' }), 'resize');
      const during = await getNode(app, node.id);
      assert.equal(during.status, 'migrating');
      assert.ok((NODE_STATUSES as readonly string[]).includes(during.status));
      assert.equal(during.type, 'g6-standard-1', 'the type changes when the resize finishes');
      assert.equal((await eventsOf(app, me.accountId, 'node_resize_create'))[0]?.status, 'notification');
      assert.equal((await eventsOf(app, me.accountId, 'node_resize'))[0]?.status, 'scheduled');
      badRequest(await act(app, node.id, 'resize', { type: 'g6-standard-4' }), 'resize while resizing', undefined, /busy/i);
      await startDue(app);
      assert.equal((await eventsOf(app, me.accountId, 'node_resize'))[0]?.status, 'started');
      await settle(app);
      const after = await getNode(app, node.id);
      assert.equal(after.status, 'running', 'a running node runs again');
      assert.equal(after.type, 'g6-standard-2');
      assert.equal(after.specs.disk, 81920);
      assert.equal(after.specs.vcpus, 2);
      assert.equal((await eventsOf(app, me.accountId, 'node_resize'))[0]?.status, 'finished');
      const [main, swap] = await disksOf(app, node.id);
      assert.equal(main?.size, 81920 - 512, 'the data disk grew into the new space');
      assert.equal(swap?.size, 512);

      ok(await act(app, node.id, 'resize', { type: 'g6-standard-4', allow_auto_disk_resize: false }), 'no disk resize');
      await settle(app);
      assert.equal((await disksOf(app, node.id))[0]?.size, 81920 - 512);
      assert.equal((await getNode(app, node.id)).type, 'g6-standard-4');
    });

    test('resize: the disks must fit the new type; the type must exist and differ; an offline node stays offline', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const node = await runningNode(app, { region: 'us-west' });
      badRequest(await act(app, node.id, 'resize', { type: 'g6-nanode-1' }), 'disks too big', 'type', /disks/);
      badRequest(await act(app, node.id, 'resize', { type: 'g9-imaginary' }), 'unknown type', 'type');
      badRequest(await act(app, node.id, 'resize', { type: 'g6-standard-1' }), 'same type', 'type');
      badRequest(await act(app, node.id, 'resize', {}), 'no type', 'type');
      badRequest(await act(app, node.id, 'resize', { type: 'g1-gpu-rtx6000-1' }), 'no GPUs in us-west', 'type');

      ok(await act(app, node.id, 'shutdown'), 'shutdown');
      await settle(app);
      const [main] = await disksOf(app, node.id);
      ok(
        await app.request('POST', `/v4/node/instances/${node.id}/disks/${main?.id}/resize`, { body: { size: 20000 } }),
        'shrink',
      );
      await settle(app);
      ok(await act(app, node.id, 'resize', { type: 'g6-nanode-1' }), 'now it fits');
      await settle(app);
      const after = await getNode(app, node.id);
      assert.equal(after.type, 'g6-nanode-1');
      assert.equal(after.status, 'offline');
    });

    test("mutate moves a node to its type's successor; a type without one is a 400", async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const old = await runningNode(app, { type: 'g5-standard-1' });
      ok(await act(app, old.id, 'mutate'), 'mutate without a body');
      assert.equal((await getNode(app, old.id)).status, 'migrating');
      assert.equal((await eventsOf(app, me.accountId, 'node_mutate_create'))[0]?.status, 'notification');
      await settle(app);
      const after = await getNode(app, old.id);
      assert.equal(after.type, 'g6-standard-1');
      assert.equal(after.status, 'running');
      assert.equal((await eventsOf(app, me.accountId, 'node_mutate'))[0]?.status, 'finished');
      badRequest(await act(app, old.id, 'mutate', { allow_auto_disk_resize: false }), 'no successor', 'type', /successor/);
    });
  });
}
