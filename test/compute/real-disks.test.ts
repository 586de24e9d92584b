import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { verify } from 'unixcrypt';
import { readExt4File } from '../../src/compute/qemu/ext4-settings.ts';
import {
  createRealNode,
  eventEnd,
  forwardedSsh,
  REAL_NODE_TOOLS,
  sshKeyPair,
  sshRun,
  startRealCloud,
  storeBusybox,
} from '../helpers/real-nodes.ts';
import { needs } from '../helpers/system-tools.ts';

const MIB = 1024 * 1024;
const NEW_PASS = 'another-Horse-staple-7';

/** The root filesystem's size (MB) as the guest's df sees it. */
function dfSizeMb(df: string): number {
  const line = df.trim().split('\n').at(-1) ?? '';
  return Number(line.trim().split(/\s+/)[1]) / 1024;
}

test(
  'disk resize and root password reset act on the real disk: shrunk and grown, the filesystem follows and the files stay; a shrink below what the disk holds changes nothing; the new password is in /etc/shadow; work that fails leaves disk and password as they were',
  needs(...REAL_NODE_TOOLS),
  async (t) => {
    const cloud = await startRealCloud(t, { CUMULO_NODE_NETWORK: 'user' });
    await storeBusybox(cloud);
    const key = await sshKeyPair(t);
    const id = await createRealNode(cloud, { image: 'node/busybox', label: 'disks', publicKey: key.publicKey });
    await cloud.waitForStatus(id, 'running');
    const [main, swap] = (await cloud.api('GET', `/v4/node/instances/${id}/disks`)).body.data as { id: number; size: number }[];
    assert.ok(main && swap);
    const disk = `/v4/node/instances/${id}/disks/${main.id}`;
    const diskFile = path.join(cloud.dataDir, 'compute', 'disks', `disk-${main.id}`, 'disk.img');
    const ssh = async (command: string) => sshRun((await forwardedSsh(cloud, id, key.privateKey)).target, command);
    const timed = async (what: string, step: () => Promise<unknown>) => {
      const started = Date.now();
      await step();
      t.diagnostic(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    };

    await ssh('dd if=/dev/urandom of=/root/data bs=1M count=24 2>/dev/null && sync');
    const sum = await ssh('md5sum /root/data');
    const running = await cloud.api('POST', `${disk}/resize`, { size: 1024 });
    assert.equal(running.status, 400, 'a running node keeps its disks as they are');
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/shutdown`, {})).status, 200);
    await cloud.waitForStatus(id, 'offline', 90_000);

    // Shrunk to 1 GB (the type's space is all taken), with a new root password, then booted.
    await timed('shrink 25 GB to 1 GB', async () => {
      const res = await cloud.api('POST', `${disk}/resize`, { size: 1024 });
      assert.equal(res.status, 200, `${JSON.stringify(res.body)}\n${cloud.server().output().slice(-3000)}`);
      assert.equal(await eventEnd(cloud, id, 'disk_resize'), 'finished');
    });
    assert.equal(fs.statSync(diskFile).size, 1024 * MIB);
    await timed('root password reset', async () => {
      const reset = await cloud.api('POST', `/v4/node/instances/${id}/password`, { root_pass: NEW_PASS });
      assert.equal(reset.status, 200, JSON.stringify(reset.body));
      assert.equal(await eventEnd(cloud, id, 'password_reset'), 'finished');
    });
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/boot`, {})).status, 200);
    await cloud.waitForStatus(id, 'running');
    const shrunk = dfSizeMb(await ssh('df -k /'));
    assert.ok(shrunk > 900 && shrunk <= 1024, `df says ${shrunk} MB`);
    assert.equal(await ssh('md5sum /root/data'), sum);
    const hash = (await ssh('grep ^root: /etc/shadow')).split(':')[1] ?? '';
    assert.ok(verify(NEW_PASS, hash), `root's hash in /etc/shadow is not of the new password: ${hash}`);

    // Grown by 512 MB.
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/shutdown`, {})).status, 200);
    await cloud.waitForStatus(id, 'offline', 90_000);
    await timed('grow 1 GB to 1.5 GB', async () => {
      assert.equal((await cloud.api('POST', `${disk}/resize`, { size: 1536 })).status, 200);
      assert.equal(await eventEnd(cloud, id, 'disk_resize'), 'finished');
    });
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/boot`, {})).status, 200);
    await cloud.waitForStatus(id, 'running');
    const grown = dfSizeMb(await ssh('df -k /'));
    assert.ok(grown > shrunk + 450 && grown <= 1536, `df says ${grown} MB after ${shrunk} MB`);
    assert.equal(await ssh('md5sum /root/data'), sum);

    // Below what the disk holds: refused, the disk as it was.
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/shutdown`, {})).status, 200);
    await cloud.waitForStatus(id, 'offline', 90_000);
    let tooSmall = { status: 0, body: null as { errors: { field?: string }[] } | null };
    await timed('shrink below what the disk holds (refused)', async () => {
      tooSmall = await cloud.api('POST', `${disk}/resize`, { size: 16 });
    });
    assert.equal(tooSmall.status, 400, JSON.stringify(tooSmall.body));
    assert.equal(tooSmall.body?.errors[0]?.field, 'size');
    assert.deepEqual(
      [(await cloud.api('GET', disk)).body.size, (await cloud.api('GET', disk)).body.status, fs.statSync(diskFile).size],
      [1536, 'ready', 1536 * MIB],
    );

    // Work that fails on the disk (its file moved away): the events fail, the disk keeps its size, the node is free.
    fs.renameSync(diskFile, `${diskFile}.away`);
    await timed('a resize whose work fails (three tries)', async () => {
      assert.equal((await cloud.api('POST', `${disk}/resize`, { size: 2048 })).status, 200);
      assert.equal(await eventEnd(cloud, id, 'disk_resize'), 'failed');
    });
    const afterFailure = (await cloud.api('GET', disk)).body;
    assert.deepEqual([afterFailure.size, afterFailure.status], [1536, 'ready']);
    const reset = await cloud.api('POST', `/v4/node/instances/${id}/password`, { root_pass: `${NEW_PASS}-2` });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.equal(await eventEnd(cloud, id, 'password_reset'), 'failed');
    fs.renameSync(`${diskFile}.away`, diskFile);
    // Read on the disk, unbooted: the password is the one set before the failures.
    const shadow = (await readExt4File(diskFile, '/etc/shadow')) ?? '';
    assert.ok(verify(NEW_PASS, /^root:([^:]*)/m.exec(shadow)?.[1] ?? ''), 'the failed reset changed nothing');
  },
);
