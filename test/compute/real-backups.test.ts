import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readExt4File } from '../../src/compute/qemu/ext4-settings.ts';
import { BLOBS_DIR } from '../../src/data-dir.ts';
import { type BackupWindow, nextWindowStart, weekdayOf } from '../../src/domain/nodes/backups/backup-schedule.ts';
import {
  createRealNode,
  forwardedSsh,
  REAL_NODE_TOOLS,
  type RealCloud,
  sshKeyPair,
  sshRun,
  startRealCloud,
  storeBusybox,
} from '../helpers/real-nodes.ts';
import { needs } from '../helpers/system-tools.ts';

async function waitForBackup(cloud: RealCloud, nodeId: number, backupId: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  let status = '';
  while (Date.now() < deadline) {
    status = (await cloud.api('GET', `/v4/node/instances/${nodeId}/backups/${backupId}`)).body.status;
    if (status === 'successful') return;
    if (status === 'failed') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`backup ${backupId} is ${status}:\n${cloud.server().output().slice(-4000)}`);
}

/** The service clock, which /admin/clock/advance moves on. */
async function serviceNow(cloud: RealCloud): Promise<number> {
  return Date.parse(`${(await cloud.api('GET', '/admin/clock')).body.now}Z`);
}

/** Moves the service clock into the node's next backup window and waits for the automatic backup taken there. */
async function nextAutomaticBackup(cloud: RealCloud, nodeId: number, window: BackupWindow, seen: readonly number[]) {
  const now = await serviceNow(cloud);
  const seconds = Math.ceil((nextWindowStart(now, window) - now) / 1000) + 60;
  const advanced = await cloud.api('POST', '/admin/clock/advance', { seconds });
  assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const list = (await cloud.api('GET', `/v4/node/instances/${nodeId}/backups`)).body.automatic as {
      id: number;
      created: string;
    }[];
    const taken = list.find((b) => !seen.includes(b.id));
    if (taken) {
      await waitForBackup(cloud, nodeId, taken.id);
      return taken;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`no automatic backup in window ${window}:\n${cloud.server().output().slice(-4000)}`);
}

/** Waits until the blob store holds nothing of the backups (their discard job has run). */
async function copiesRemoved(cloud: RealCloud, backupIds: readonly number[]): Promise<void> {
  const left = () => backupIds.flatMap((b) => storedCopies(cloud, b));
  const deadline = Date.now() + 30_000;
  while (left().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(left(), [], `the copies of backups ${backupIds.join(', ')} are removed`);
}

/** The files the blob store holds for a backup. */
function storedCopies(cloud: RealCloud, backupId: number): string[] {
  const folder = path.join(cloud.dataDir, BLOBS_DIR, 'backups', String(backupId));
  return fs.existsSync(folder) ? fs.readdirSync(folder).sort() : [];
}

test(
  'a snapshot of a running busybox node is a point-in-time copy of its disks: restored over the node, it boots with the file as it was then, and so does another node it is restored to, with its own address, as does a node created from it; automatic backups are taken each day in the window, the dropped ones removed, and each one kept holds the file of its day; cancelling the service removes the copies',
  needs(...REAL_NODE_TOOLS),
  async (t) => {
    // At info, the server logs how long each snapshot paused its machine.
    const cloud = await startRealCloud(t, { CUMULO_NODE_NETWORK: 'user', LOG_LEVEL: 'info' });
    await storeBusybox(cloud);
    const key = await sshKeyPair(t);
    const id = await createRealNode(cloud, { image: 'node/busybox', label: 'backed-up', publicKey: key.publicKey });
    await cloud.waitForStatus(id, 'running');
    const { target } = await forwardedSsh(cloud, id, key.privateKey);
    // A window half a day away: no automatic backup is taken until the clock is moved on to it (below).
    const window = `W${(Math.floor(new Date(await serviceNow(cloud)).getUTCHours() / 2) * 2 + 12) % 24}` as BackupWindow;
    const scheduled = await cloud.api('PUT', `/v4/node/instances/${id}`, { backups: { schedule: { window } } });
    assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/backups/enable`, {})).status, 200);

    await sshRun(target, 'echo one > /root/state; sync');
    const snapshotStarted = Date.now();
    const snapshot = await cloud.api('POST', `/v4/node/instances/${id}/backups`, { label: 'before-two' });
    assert.equal(snapshot.status, 200, JSON.stringify(snapshot.body));
    const backupId: number = snapshot.body.id;
    await waitForBackup(cloud, id, backupId);
    t.diagnostic(`snapshot: ${((Date.now() - snapshotStarted) / 1000).toFixed(1)} s`);
    // The log line may reach the test's pipe a little after the backup's status changed.
    let paused: number | undefined;
    for (const until = Date.now() + 5000; paused === undefined && Date.now() < until; ) {
      const found = /"pausedMs":(\d+)/.exec(cloud.server().output());
      if (found) paused = Number(found[1]);
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(paused !== undefined && paused > 0, `the running machine was paused while its disk was copied (${paused} ms)`);
    t.diagnostic(`the machine was paused ${paused} ms`);

    const [rootDisk] = (await cloud.api('GET', `/v4/node/instances/${id}/disks`)).body.data as { id: number }[];
    assert.ok(rootDisk);
    const prefix = `disk-${rootDisk.id}`;
    assert.deepEqual(
      storedCopies(cloud, backupId).filter((f) => f.startsWith(prefix)),
      [`${prefix}.img`, `${prefix}.initrd.img`, `${prefix}.vmlinuz`],
    );

    // The node ran on through the snapshot.
    await sshRun(target, 'echo two > /root/state; sync');
    assert.equal(await sshRun(target, 'cat /root/state'), 'two\n');

    const restoreStarted = Date.now();
    const restored = await cloud.api('POST', `/v4/node/instances/${id}/backups/${backupId}/restore`, {
      node_id: id,
      overwrite: true,
    });
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    await cloud.waitForStatus(id, 'restoring', 10_000).catch(() => {});
    await cloud.waitForStatus(id, 'offline');
    t.diagnostic(`restore (the machine stopped and the disk written): ${((Date.now() - restoreStarted) / 1000).toFixed(1)} s`);
    const disks = fs.readdirSync(path.join(cloud.dataDir, 'compute', 'disks'));
    assert.ok(!disks.includes(prefix), `the overwritten disk's files are gone: ${disks.join(', ')}`);

    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/boot`, {})).status, 200);
    await cloud.waitForStatus(id, 'running');
    const after = await forwardedSsh(cloud, id, key.privateKey);
    assert.equal(await sshRun(after.target, 'cat /root/state'), 'one\n');

    // Onto another node (created without booting): it boots to the same state, with its own address.
    const other = await createRealNode(cloud, {
      image: 'node/busybox',
      label: 'restored-to',
      publicKey: key.publicKey,
      extra: { booted: false },
    });
    await cloud.waitForStatus(other, 'offline');
    const toOther = await cloud.api('POST', `/v4/node/instances/${id}/backups/${backupId}/restore`, {
      node_id: other,
      overwrite: true,
    });
    assert.equal(toOther.status, 200, JSON.stringify(toOther.body));
    await cloud.waitForStatus(other, 'restoring', 10_000).catch(() => {});
    await cloud.waitForStatus(other, 'offline');
    // Read on its disk, unbooted (the node created from the backup below boots): the state and its own address.
    const otherDisks = (await cloud.api('GET', `/v4/node/instances/${other}/disks`)).body.data as {
      id: number;
      filesystem: string;
    }[];
    const otherRoot = otherDisks.find((d) => d.filesystem === 'ext4');
    assert.ok(otherRoot, JSON.stringify(otherDisks));
    const otherDisk = path.join(cloud.dataDir, 'compute', 'disks', `disk-${otherRoot.id}`, 'disk.img');
    assert.equal(await readExt4File(otherDisk, '/root/state'), 'one\n');
    const otherIp: string = (await cloud.api('GET', `/v4/node/instances/${other}`)).body.ipv4[0];
    assert.match(
      (await readExt4File(otherDisk, '/etc/network/interfaces.d/cumulo')) ?? '',
      new RegExp(`address ${otherIp.replaceAll('.', '\\.')}/`),
    );

    // A node created from the backup boots to the same state, with its own address too.
    const fromBackup = await cloud.api('POST', '/v4/node/instances', {
      type: 'g6-nanode-1',
      region: 'us-east',
      label: 'from-backup',
      backup_id: backupId,
    });
    assert.equal(fromBackup.status, 200, JSON.stringify(fromBackup.body));
    const third: number = fromBackup.body.id;
    await cloud.waitForStatus(third, 'running');
    const thirdSsh = await forwardedSsh(cloud, third, key.privateKey);
    assert.equal(await sshRun(thirdSsh.target, 'cat /root/state'), 'one\n');
    assert.match(
      await sshRun(thirdSsh.target, 'ip -4 addr show eth0'),
      new RegExp(`inet ${fromBackup.body.ipv4[0].replaceAll('.', '\\.')}/`),
    );

    // Automatic backups, one a day in the node's window (the service clock moved on to it), each
    // holding the file as it was then. Retention keeps the two newest and, of the older ones, the
    // newest taken on the schedule's day (the newest of them when none was).
    const autoStarted = Date.now();
    const nodeDisks = ((await cloud.api('GET', `/v4/node/instances/${id}/disks`)).body.data as { id: number }[]).map((d) => d.id);
    const taken: { id: number; created: string }[] = [];
    const takeAutomaticBackup = async (n: number) => {
      await sshRun(after.target, `echo auto-${n} > /root/state; sync`);
      const backup = await nextAutomaticBackup(
        cloud,
        id,
        window,
        taken.map((b) => b.id),
      );
      assert.equal(Number(backup.created.slice(11, 13)), Number(window.slice(1)), `backup ${n} is taken in the window`);
      const copies = storedCopies(cloud, backup.id);
      for (const disk of nodeDisks) assert.ok(copies.includes(`disk-${disk}.img`), `backup ${n} holds disk ${disk}: ${copies}`);
      taken.push(backup);
    };
    const automaticIds = async () =>
      ((await cloud.api('GET', `/v4/node/instances/${id}/backups`)).body.automatic as { id: number }[])
        .map((b) => b.id)
        .sort((a, b) => a - b);
    /** The ids of the nth backups taken (from 1), in order. */
    const idsOf = (...ns: number[]) => ns.map((n) => taken[n - 1]?.id ?? assert.fail(`no backup ${n}`));
    const setDay = async (day: string) => {
      const res = await cloud.api('PUT', `/v4/node/instances/${id}`, { backups: { schedule: { day } } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    // A schedule day none of the first four backups falls on: the fourth drops the oldest.
    await setDay(weekdayOf(nextWindowStart(await serviceNow(cloud), window) - 86_400_000));
    for (const n of [1, 2, 3]) await takeAutomaticBackup(n);
    assert.deepEqual(await automaticIds(), idsOf(1, 2, 3));
    await takeAutomaticBackup(4);
    assert.deepEqual(await automaticIds(), idsOf(2, 3, 4), 'the oldest is dropped');
    await copiesRemoved(cloud, idsOf(1));
    // The second backup's day made the schedule's: it is kept as the weekly one, and the third goes.
    await setDay(weekdayOf(Date.parse(`${taken[1]?.created}Z`)));
    await takeAutomaticBackup(5);
    assert.deepEqual(await automaticIds(), idsOf(2, 4, 5), 'the weekly backup is kept');
    await copiesRemoved(cloud, idsOf(3));
    for (const b of idsOf(2, 4, 5)) assert.notDeepEqual(storedCopies(cloud, b), [], `backup ${b} keeps its copies`);
    t.diagnostic(`five automatic backups: ${((Date.now() - autoStarted) / 1000).toFixed(1)} s`);

    // Each backup kept, restored onto the other node, holds the file as it was on its day.
    for (const n of [2, 4, 5]) {
      const restore = await cloud.api('POST', `/v4/node/instances/${id}/backups/${idsOf(n)[0]}/restore`, {
        node_id: other,
        overwrite: true,
      });
      assert.equal(restore.status, 200, JSON.stringify(restore.body));
      await cloud.waitForStatus(other, 'restoring', 10_000).catch(() => {});
      await cloud.waitForStatus(other, 'offline');
      const disks = (await cloud.api('GET', `/v4/node/instances/${other}/disks`)).body.data as typeof otherDisks;
      const root = disks.find((d) => d.filesystem === 'ext4');
      assert.ok(root, JSON.stringify(disks));
      const file = path.join(cloud.dataDir, 'compute', 'disks', `disk-${root.id}`, 'disk.img');
      assert.equal(await readExt4File(file, '/root/state'), `auto-${n}\n`, `backup ${n}`);
    }
    t.diagnostic(`automatic backups, retention and three restores: ${((Date.now() - autoStarted) / 1000).toFixed(1)} s`);

    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/backups/cancel`, {})).status, 200);
    // Cancelling the service removes the stored copies of every backup.
    await copiesRemoved(cloud, [backupId, ...idsOf(2, 4, 5)]);
    const backupsDir = path.join(cloud.dataDir, BLOBS_DIR, 'backups');
    assert.deepEqual(fs.existsSync(backupsDir) ? fs.readdirSync(backupsDir) : [], [], 'the blob store holds no backup');
  },
);
