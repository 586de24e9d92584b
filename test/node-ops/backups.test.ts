import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { automaticBackupsToDrop, nextBackupAt, nextWindowStart } from '../../src/domain/nodes/backups/backup-schedule.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import {
  act,
  admin,
  badRequest,
  createNode,
  eventsOf,
  getNode,
  manualClock,
  ok,
  runningNode,
  settle,
  startDue,
} from './helpers.ts';

async function backups(app: TestApp, nodeId: number) {
  return ok(await app.request('GET', `/v4/node/instances/${nodeId}/backups`), 'list backups').body;
}

async function backup(app: TestApp, nodeId: number, backupId: number) {
  return app.request('GET', `/v4/node/instances/${nodeId}/backups/${backupId}`);
}

/** A running node with the backup service on. */
async function backedNode(app: TestApp) {
  const node = await runningNode(app);
  ok(await act(app, node.id, 'backups/enable'), 'enable backups');
  return node;
}

function moveTo(app: TestApp, ms: number): void {
  app.runtime.ctx.clock.advance(ms - app.runtime.ctx.clock.nowMs());
}

test('retention keeps the two newest automatic backups and, of the older ones, the newest taken on the schedule day', () => {
  const day = (n: number) => ({ id: n, createdMs: Date.parse(`2030-01-${String(n).padStart(2, '0')}T02:00:00Z`) });
  // 2030-01-06 is a Sunday.
  const week = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(day);
  assert.deepEqual(automaticBackupsToDrop(week, 'Sunday').sort(), [1, 2, 3, 4, 5, 7]);
  assert.deepEqual(automaticBackupsToDrop(week, 'Friday').sort(), [1, 2, 3, 5, 6, 7]);
  assert.deepEqual(automaticBackupsToDrop(week.slice(0, 3), 'Monday'), []);
  assert.deepEqual(automaticBackupsToDrop([4, 5, 6, 7].map(day), 'Wednesday'), [4]);
});

for (const dialect of DIALECTS) {
  describe(`snapshots and the backup service [${dialect}]`, () => {
    test('a snapshot needs the service; enable fixes a day and window from the node id and records backups_enable', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await runningNode(app);
      badRequest(await act(app, node.id, 'backups', { label: 'first' }), 'snapshot with the service off', undefined, /enable/);

      ok(await act(app, node.id, 'backups/enable'), 'enable');
      const { backups: enabled } = await getNode(app, node.id);
      assert.equal(enabled.enabled, true);
      assert.match(enabled.schedule.day, /^(Sun|Mon|Tues|Wednes|Thurs|Fri|Satur)day$/);
      assert.match(enabled.schedule.window, /^W([02468]|1[02468]|2[02])$/);
      const [event] = await eventsOf(app, me.accountId, 'backups_enable');
      assert.equal(event?.entity_id, node.id);
      assert.equal(event?.status, 'notification');

      // Asking the service to choose again gives the same pick: it is derived from the node id.
      const reset = { backups: { schedule: { day: 'Scheduling', window: 'Scheduling' } } };
      ok(await app.request('PUT', `/v4/node/instances/${node.id}`, { body: reset }), 'update schedule');
      ok(await act(app, node.id, 'backups/enable'), 'enable again');
      assert.deepEqual((await getNode(app, node.id)).backups.schedule, enabled.schedule);

      badRequest(await act(app, node.id, 'backups', { label: '' }), 'empty label', 'label');
      badRequest(await act(app, node.id, 'backups', { label: 'x'.repeat(256) }), 'long label', 'label');
      badRequest(await act(app, node.id, 'backups', {}), 'no label', 'label');
    });

    test('a snapshot goes pending -> running -> successful and replaces the previous one once it has succeeded', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await backedNode(app);
      const first = ok(await act(app, node.id, 'backups', { label: 'first' }), 'snapshot').body;
      assert.equal(first.type, 'snapshot');
      assert.equal(first.status, 'pending');
      assert.equal(first.available, false, 'nothing to restore yet');
      assert.equal(first.region, node.region);
      assert.equal(first.label, 'first');
      assert.equal(first.finished, null);
      assert.deepEqual(first.configs, ['My Debian 12 Disk Profile']);
      assert.deepEqual(
        first.disks.map((d: { filesystem: string }) => d.filesystem),
        ['ext4', 'swap'],
      );
      let list = await backups(app, node.id);
      assert.deepEqual(list.snapshot.in_progress, first);
      assert.equal(list.snapshot.current, null);
      assert.deepEqual(list.automatic, []);
      badRequest(await act(app, node.id, 'reboot'), 'reboot while the snapshot is taken', undefined, /busy/i);

      await startDue(app);
      const running = (await backup(app, node.id, first.id)).body;
      assert.deepEqual([running.status, running.available], ['running', false]);
      assert.equal((await eventsOf(app, me.accountId, 'node_snapshot'))[0]?.status, 'started');
      await settle(app);
      const done = (await backup(app, node.id, first.id)).body;
      assert.equal(done.status, 'successful');
      assert.equal(done.available, true, 'it can be restored now');
      assert.equal(done.region, node.region);
      assert.ok(done.finished);
      assert.equal((await getNode(app, node.id)).backups.last_successful, done.finished);
      // A backup that succeeded can be restored now.
      assert.equal((await getNode(app, node.id)).backups.available, true);
      assert.equal((await eventsOf(app, me.accountId, 'node_snapshot'))[0]?.status, 'finished');

      const second = ok(await act(app, node.id, 'backups', { label: 'second' }), 'second snapshot').body;
      list = await backups(app, node.id);
      assert.deepEqual(list.snapshot.current, done, 'the old snapshot stays until the new one succeeds');
      assert.deepEqual(list.snapshot.in_progress, second);
      await settle(app);
      list = await backups(app, node.id);
      assert.equal(list.snapshot.current.id, second.id);
      assert.equal(list.snapshot.in_progress, null);
      assert.equal((await backup(app, node.id, first.id)).status, 404);
    });

    test('a backup shows the region it is kept in: where it was taken, also once its node has moved', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const node = await backedNode(app);
      const taken = ok(await act(app, node.id, 'backups', { label: 'before the move' }), 'snapshot').body;
      await settle(app);
      ok(await act(app, node.id, 'migrate', { region: 'us-central' }), 'migrate');
      await settle(app);
      assert.equal((await getNode(app, node.id)).region, 'us-central');
      const kept = (await backup(app, node.id, taken.id)).body;
      assert.deepEqual([kept.region, kept.available], [node.region, true]);
      assert.deepEqual((await backups(app, node.id)).snapshot.current, kept);
      // A node made from it goes where it is kept.
      const elsewhere = await app.request('POST', '/v4/node/instances', {
        body: { region: 'us-central', type: 'g6-standard-1', backup_id: taken.id },
      });
      badRequest(elsewhere, 'a node from it in another region', 'region');
    });

    test('cancel turns the service off and deletes every backup, also one being taken', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const me = await admin(app);
      const node = await backedNode(app);
      const kept = ok(await act(app, node.id, 'backups', { label: 'kept' }), 'snapshot').body;
      await settle(app);
      const taking = ok(await act(app, node.id, 'backups', { label: 'taking' }), 'snapshot').body;

      const res = ok(await act(app, node.id, 'backups/cancel'), 'cancel');
      assert.deepEqual(res.body, {});
      assert.deepEqual(await backups(app, node.id), { automatic: [], snapshot: { current: null, in_progress: null } });
      assert.equal((await backup(app, node.id, kept.id)).status, 404);
      assert.equal((await backup(app, node.id, taking.id)).status, 404);
      assert.equal((await getNode(app, node.id)).backups.enabled, false);
      assert.equal((await eventsOf(app, me.accountId, 'backups_cancel'))[0]?.entity_id, node.id);
      badRequest(await act(app, node.id, 'backups', { label: 'again' }), 'snapshot after cancel');

      await settle(app);
      ok(await act(app, node.id, 'reboot'), 'the node is free once the dropped snapshot has ended');
    });

    test('a node created with backups_enabled gets its schedule and its first backup in the window', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const node = await createNode(app, { backups_enabled: true });
      assert.equal(node.backups.enabled, true);
      assert.match(node.backups.schedule.window, /^W\d+$/);
      await settle(app);
      moveTo(app, nextWindowStart(app.runtime.ctx.clock.nowMs(), node.backups.schedule.window));
      await runDueJobs(app);
      await settle(app);
      const [taken] = (await backups(app, node.id)).automatic;
      assert.equal(taken?.status, 'successful');
    });

    test('with the service on a backup is taken each day in the window; three automatic ones are kept', async (t) => {
      const app = await buildTestApp(t, { dialect, clock: manualClock() });
      const node = await backedNode(app);
      const { window } = (await getNode(app, node.id)).backups.schedule;
      let due = nextBackupAt(app.runtime.ctx.clock.nowMs(), window);
      const taken: number[] = [];
      for (let day = 0; day < 5; day += 1) {
        moveTo(app, due - 60_000);
        await runDueJobs(app);
        assert.equal((await backups(app, node.id)).automatic.length, Math.min(day, 3), `day ${day}: nothing before the window`);
        moveTo(app, due);
        await runDueJobs(app);
        await settle(app);
        const list = await backups(app, node.id);
        const newest = list.automatic.at(-1);
        assert.equal(newest.type, 'auto');
        assert.equal(newest.status, 'successful');
        assert.equal(newest.label, null);
        assert.equal(newest.created, new Date(due).toISOString().slice(0, 19));
        assert.equal((await getNode(app, node.id)).backups.last_successful, newest.finished);
        taken.push(newest.id);
        assert.equal(list.automatic.length, Math.min(day + 1, 3), `day ${day}`);
        due = nextWindowStart(due, window);
      }
      const ids = (await backups(app, node.id)).automatic.map((b: { id: number }) => b.id);
      assert.ok(ids.includes(taken[3]) && ids.includes(taken[4]), 'the two newest are kept');

      // A new window applies from the next run on: the old one passes without a backup.
      const hour = (Number(window.slice(1)) + 12) % 24;
      const body = { backups: { schedule: { window: `W${hour}` } } };
      ok(await app.request('PUT', `/v4/node/instances/${node.id}`, { body }), 'move the window');
      moveTo(app, due);
      await runDueJobs(app);
      await settle(app);
      assert.deepEqual(
        (await backups(app, node.id)).automatic.map((b: { id: number }) => b.id),
        ids,
      );
      moveTo(app, nextWindowStart(app.runtime.ctx.clock.nowMs(), `W${hour}` as typeof window));
      await runDueJobs(app);
      await settle(app);
      assert.equal(Number((await backups(app, node.id)).automatic.at(-1).created.slice(11, 13)), hour);
    });
  });
}
