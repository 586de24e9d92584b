import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { up as rewriteEventRecords } from '../../src/db/migrations/0029-event-records.ts';
import type { MigrationDb } from '../../src/db/migrations/schema-helpers.ts';
import { admin, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { act, configsOf, createEmptyNode, disksOf, manualClock, ok, runningNode, settle, startDue } from '../node-ops/helpers.ts';

/** An event as GET /v4/account/events answers it (the keys these tests read). */
interface ApiEvent {
  id: number;
  action: string;
  status: string;
  entity: { id: number; type: string; label: string; url: string } | null;
  secondary_entity: { id: number | string; type: string; label: string; url: string } | null;
  username: string;
  message: string;
  percent_complete: number | null;
  time_remaining: string | null;
  rate: string | null;
  duration: number | null;
  created: string;
  details: Record<string, never>;
}

/** The events a client finds with this X-Filter, newest first. */
async function eventsFiltered(app: TestApp, filter: Record<string, unknown>): Promise<ApiEvent[]> {
  const res = await app.request('GET', '/v4/account/events?page_size=500', { headers: { 'x-filter': JSON.stringify(filter) } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** The newest event of an action about a node (entity.type `node`), as a waiting client asks for it. */
async function latest(app: TestApp, action: string, nodeId: number): Promise<ApiEvent> {
  const [event] = await eventsFiltered(app, { action, 'entity.id': nodeId, 'entity.type': 'node' });
  assert.ok(event, `a ${action} event about node ${nodeId}`);
  return event;
}

/** What an event names, compactly: [action, entity type and id, secondary type and id]. */
function names(e: ApiEvent) {
  return [e.action, e.entity?.type, e.entity?.id, e.secondary_entity?.type ?? null, e.secondary_entity?.id ?? null];
}

const nodeUrl = (id: number) => `/v4/node/instances/${id}`;

for (const dialect of DIALECTS) {
  describe(`events name what they concern, as the live service records them [${dialect}]`, () => {
    test('a node made from an image, booted, rebooted and shut down: the image by its text id, the config by number', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await runningNode(app, { label: 'web-1' });
      const debian = ok(await app.request('GET', '/v4/images/node/debian12', { token: null }), 'image').body;

      const created = await latest(app, 'node_create', node.id);
      assert.deepEqual(created.entity, { id: node.id, type: 'node', label: 'web-1', url: nodeUrl(node.id) });
      assert.deepEqual(created.secondary_entity, {
        id: 'node/debian12',
        type: 'image',
        label: debian.label,
        url: '/v4/images/node/debian12',
      });
      assert.equal(created.username, me.username);
      assert.equal(created.message, '');
      assert.deepEqual(created.details, {});

      const [config] = await configsOf(app, node.id);
      assert.ok(config);
      const configRef = {
        id: config.id,
        type: 'node_config',
        label: config.label,
        url: `${nodeUrl(node.id)}/configs/${config.id}`,
      };
      ok(await act(app, node.id, 'shutdown'), 'shutdown');
      await settle(app);
      ok(await act(app, node.id, 'boot', { config_id: config.id }), 'boot');
      await settle(app);
      ok(await act(app, node.id, 'reboot'), 'reboot');
      await settle(app);
      assert.equal((await latest(app, 'node_shutdown', node.id)).secondary_entity, null);
      assert.deepEqual((await latest(app, 'node_boot', node.id)).secondary_entity, configRef);
      assert.deepEqual((await latest(app, 'node_reboot', node.id)).secondary_entity, configRef);

      const empty = await createEmptyNode(app, { label: 'bare' });
      const bare = await latest(app, 'node_create', empty.id);
      assert.deepEqual([bare.status, bare.secondary_entity], ['finished', null], 'made from nothing: no secondary entity');
    });

    test("a node's configs and disks: the node is the entity, the config or disk the secondary, by number", async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const node = await createEmptyNode(app);
      const base = nodeUrl(node.id);
      const disk = ok(await app.request('POST', `${base}/disks`, { body: { size: 1000, label: 'scratch' } }), 'disk create').body;
      await settle(app);

      const config = ok(
        await app.request('POST', `${base}/configs`, { body: { label: 'spare', devices: { sda: { disk_id: disk.id } } } }),
        'config create',
      ).body;
      ok(await app.request('PUT', `${base}/configs/${config.id}`, { body: { label: 'spare-2' } }), 'config update');
      ok(await app.request('DELETE', `${base}/configs/${config.id}`), 'config delete');
      for (const action of ['node_config_create', 'node_config_update', 'node_config_delete']) {
        const event = await latest(app, action, node.id);
        assert.deepEqual(names(event), [action, 'node', node.id, 'node_config', config.id], action);
        assert.equal(event.secondary_entity?.url, `${base}/configs/${config.id}`, action);
        // The live service records a config's changes as notifications: no progress, no duration.
        assert.deepEqual([event.status, event.percent_complete, event.duration], ['notification', null, null], action);
      }

      ok(await app.request('PUT', `${base}/disks/${disk.id}`, { body: { label: 'scratch-2' } }), 'disk update');
      ok(await app.request('POST', `${base}/disks/${disk.id}/resize`, { body: { size: 1200 } }), 'disk resize');
      await settle(app);
      const copy = ok(await app.request('POST', `${base}/disks/${disk.id}/clone`), 'disk clone').body;
      await settle(app);
      ok(await app.request('DELETE', `${base}/disks/${disk.id}`), 'disk delete');
      await settle(app);
      const expected: [string, number][] = [
        ['disk_create', disk.id],
        ['disk_update', disk.id],
        ['disk_resize', disk.id],
        ['disk_duplicate', copy.id],
        ['disk_delete', disk.id],
      ];
      for (const [action, diskId] of expected) {
        const event = await latest(app, action, node.id);
        assert.deepEqual(names(event), [action, 'node', node.id, 'disk', diskId], action);
        assert.equal(event.secondary_entity?.url, `${base}/disks/${diskId}`, action);
        // Work a job does finishes; a change done at once is a notification, as the live service records it.
        assert.equal(event.status, action === 'disk_update' ? 'notification' : 'finished', action);
      }
    });

    test("disk_imagize names the disk's node and the image by number; a node made from that image names it so", async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const node = await runningNode(app, { label: 'golden-src' });
      const [root] = await disksOf(app, node.id);
      assert.ok(root);
      const image = ok(await app.request('POST', '/v4/images', { body: { disk_id: root.id, label: 'golden' } }), 'image').body;
      const num = Number(image.id.slice('private/'.length));
      const imageRef = { id: num, type: 'image', label: 'golden', url: `/v4/images/${image.id}` };
      const imagize = await latest(app, 'disk_imagize', node.id);
      assert.deepEqual(imagize.entity, { id: node.id, type: 'node', label: 'golden-src', url: nodeUrl(node.id) });
      assert.deepEqual(imagize.secondary_entity, imageRef);
      await settle(app);
      assert.equal((await latest(app, 'disk_imagize', node.id)).status, 'finished');

      const made = await runningNode(app, { image: image.id });
      assert.deepEqual((await latest(app, 'node_create', made.id)).secondary_entity, imageRef);
    });

    test('a clone names the source node and the target by number; snapshots and restores name the node alone', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const source = await runningNode(app, { label: 'source' });
      const target = ok(
        await act(app, source.id, 'clone', { region: 'us-east', type: 'g6-standard-1', label: 'target' }),
        'clone',
      );
      const cloned = await latest(app, 'node_clone', source.id);
      assert.deepEqual(cloned.secondary_entity, {
        id: target.body.id,
        type: 'node',
        label: 'target',
        url: nodeUrl(target.body.id),
      });
      await settle(app);

      ok(await act(app, source.id, 'backups/enable'), 'enable backups');
      const snapshot = ok(await act(app, source.id, 'backups', { label: 'kept' }), 'snapshot').body;
      await settle(app);
      ok(await act(app, source.id, `backups/${snapshot.id}/restore`, { node_id: target.body.id, overwrite: true }), 'restore');
      await settle(app);
      assert.deepEqual(names(await latest(app, 'backups_enable', source.id)), ['backups_enable', 'node', source.id, null, null]);
      assert.deepEqual(names(await latest(app, 'node_snapshot', source.id)), ['node_snapshot', 'node', source.id, null, null]);
      assert.deepEqual(names(await latest(app, 'backups_restore', target.body.id)), [
        'backups_restore',
        'node',
        target.body.id,
        null,
        null,
      ]);
    });

    test("entity.type disks or backups with a node id finds that node's disk or backup events", async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const node = await createEmptyNode(app);
      const other = await createEmptyNode(app);
      for (const n of [node, other]) {
        ok(await app.request('POST', `${nodeUrl(n.id)}/disks`, { body: { size: 500 } }), 'disk create');
        await settle(app);
      }
      ok(await act(app, node.id, 'backups/enable'), 'enable backups');
      ok(await act(app, node.id, 'backups', { label: 'one' }), 'snapshot');
      await settle(app);

      // What a client waiting on a node's new disk sends, over and over until the event is finished.
      const waited = await eventsFiltered(app, {
        '+order': 'desc',
        '+order_by': 'created',
        action: 'disk_create',
        'entity.id': node.id,
        'entity.type': 'disks',
      });
      assert.deepEqual(
        waited.map((e) => [e.action, e.status, e.entity?.type, e.entity?.id]),
        [['disk_create', 'finished', 'node', node.id]],
      );
      const diskEvents = await eventsFiltered(app, { 'entity.id': node.id, 'entity.type': 'disks' });
      assert.ok(diskEvents.length > 0);
      assert.ok(diskEvents.every((e) => e.action.startsWith('disk_') && e.entity?.id === node.id));
      const backupEvents = await eventsFiltered(app, { 'entity.id': node.id, 'entity.type': 'backups' });
      assert.deepEqual(backupEvents.map((e) => e.action).sort(), ['backups_enable', 'node_snapshot']);
      assert.deepEqual(await eventsFiltered(app, { 'entity.id': other.id, 'entity.type': 'backups' }), []);

      const aboutNode = await eventsFiltered(app, { 'entity.id': node.id, 'entity.type': 'node' });
      const notDisks = await eventsFiltered(app, { 'entity.id': node.id, 'entity.type': { '+neq': 'disks' } });
      assert.equal(notDisks.length, aboutNode.length - diskEvents.length);
      assert.ok(notDisks.every((e) => !e.action.startsWith('disk_')));
      const either = await eventsFiltered(app, {
        'entity.id': node.id,
        '+or': [{ 'entity.type': 'disks' }, { 'entity.type': 'backups' }],
      });
      assert.equal(either.length, diskEvents.length + backupEvents.length);
      // Still a column to order by.
      assert.equal((await eventsFiltered(app, { '+order_by': 'entity.type', 'entity.id': node.id })).length, aboutNode.length);
    });

    test('a running event shows its time left, rate and duration so far; once finished, whole seconds and neither', async (t) => {
      const clock = manualClock();
      const app = await buildTestApp(t, { dialect, clock, config: { timeScale: 1 } });
      const source = await runningNode(app);
      const sizeMb = (await disksOf(app, source.id)).reduce((sum, d) => sum + d.size, 0);
      ok(await act(app, source.id, 'clone', { region: 'us-east', type: 'g6-standard-1' }), 'clone');
      const scheduled = await latest(app, 'node_clone', source.id);
      assert.deepEqual(
        [scheduled.status, scheduled.percent_complete, scheduled.time_remaining, scheduled.rate, scheduled.duration],
        ['scheduled', 0, null, null, null],
      );

      await startDue(app);
      const started = await latest(app, 'node_clone', source.id);
      const sinceCreated = () => (clock.nowMs() - Date.parse(`${started.created}Z`)) / 1000;
      assert.equal(started.status, 'started');
      // A clone takes 40 s of service time: all of it is left, at the disks' size over 40 s.
      assert.equal(started.time_remaining, '0:0:40');
      assert.equal(started.rate, `${(sizeMb / 40).toFixed(2)} MB/s`);
      assert.equal(started.duration, sinceCreated());

      clock.advance(20_000);
      await startDue(app);
      const halfway = await latest(app, 'node_clone', source.id);
      assert.deepEqual([halfway.status, halfway.percent_complete, halfway.time_remaining], ['started', 50, '0:0:20']);
      assert.equal(halfway.duration, Math.round(sinceCreated() * 1e6) / 1e6);

      await settle(app);
      const finished = await latest(app, 'node_clone', source.id);
      assert.deepEqual(
        [finished.status, finished.percent_complete, finished.time_remaining, finished.rate],
        ['finished', 100, null, null],
      );
      assert.ok(Number.isInteger(finished.duration) && (finished.duration ?? 0) >= 40, `duration ${finished.duration}`);
    });

    test('events no user caused carry the username "system"; every event has a message, "" when it adds nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      // The operator (the CLI) adds users through the same service: no user acts.
      const added = await newUser(app, me.accountId);
      const [made] = await eventsFiltered(app, { action: 'user_create' });
      assert.deepEqual([made?.entity?.label, made?.username, made?.message], [added.username, 'system', '']);
      const all = await eventsFiltered(app, {});
      assert.ok(all.length > 0);
      assert.ok(all.every((e) => typeof e.username === 'string' && typeof e.message === 'string'));
      const mine = await eventsFiltered(app, { username: 'system' });
      assert.ok(
        mine.some((e) => e.id === made?.id),
        'filterable by it',
      );
    });

    test('migration 0029 rewrites events kept from before into these shapes', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await createEmptyNode(app, { label: 'kept' });
      const { db } = app.runtime.ctx;
      const old = {
        account_id: me.accountId,
        user_id: null,
        username: null,
        entity_type: 'node',
        entity_id: node.id,
        entity_label: 'kept',
        entity_url: nodeUrl(node.id),
        status: 'finished',
        percent_complete: 100,
        rate: null,
        time_remaining: null,
        message: null,
        duration: 2.75,
        seen: 0,
        read: 0,
        created: '2029-12-31T00:00:00',
        updated: '2029-12-31T00:00:00',
      };
      const secondary = (value: object) => JSON.stringify(value);
      const rows = [
        { action: 'node_config_create', secondary_entity: secondary({ id: '7', type: 'config', label: 'c', url: 'u' }) },
        { action: 'disk_create', secondary_entity: secondary({ id: '8', type: 'disk', label: 'd', url: 'u' }) },
        {
          action: 'disk_imagize',
          entity_type: 'disks',
          entity_label: 'a disk',
          entity_url: `${nodeUrl(node.id)}/disks/8`,
          secondary_entity: secondary({ id: 'private/9', type: 'image', label: 'i', url: '/v4/images/private/9' }),
        },
        { action: 'node_create', secondary_entity: secondary({ id: 'node/debian12', type: 'image', label: 'D', url: 'u' }) },
        { action: 'node_clone', secondary_entity: secondary({ id: String(node.id), type: 'node', label: 'n', url: 'u' }) },
      ];
      // Old rows had nulls the table's type no longer allows.
      const insert = db.insertInto('events') as unknown as {
        values(v: unknown): { returning(c: 'id'): { execute(): Promise<{ id: number }[]> } };
      };
      const ids = await insert
        .values(rows.map((r) => ({ ...old, ...r })))
        .returning('id')
        .execute();
      await rewriteEventRecords(db as unknown as MigrationDb, dialect);

      const kept = (await eventsFiltered(app, { id: { '+gte': ids[0]?.id ?? 0 } })).reverse();
      assert.deepEqual(
        kept.map((e) => [e.action, e.entity?.type, e.entity?.label, e.secondary_entity?.type, e.secondary_entity?.id]),
        [
          ['node_config_create', 'node', 'kept', 'node_config', 7],
          ['disk_create', 'node', 'kept', 'disk', 8],
          ['disk_imagize', 'node', 'kept', 'image', 9],
          ['node_create', 'node', 'kept', 'image', 'node/debian12'],
          ['node_clone', 'node', 'kept', 'node', node.id],
        ],
      );
      assert.equal(kept[2]?.entity?.url, nodeUrl(node.id));
      assert.ok(kept.every((e) => e.username === 'system' && e.message === ''));
      assert.deepEqual(
        kept.map((e) => [e.status, e.duration]),
        [
          ['notification', null],
          ['finished', 3],
          ['finished', 3],
          ['finished', 3],
          ['finished', 3],
        ],
      );
    });
  });
}
