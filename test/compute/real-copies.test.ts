import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { diskFiles } from '../../src/compute/qemu/data-layout.ts';
import { readExt4File } from '../../src/compute/qemu/ext4-settings.ts';
import type { RealCloud } from '../helpers/real-nodes.ts';
import {
  createRealNode,
  forwardedSsh,
  REAL_NODE_TOOLS,
  sshKeyPair,
  sshRun,
  startRealCloud,
  storeBusybox,
} from '../helpers/real-nodes.ts';
import { needs } from '../helpers/system-tools.ts';

async function waitForDisk(cloud: RealCloud, nodeId: number, diskId: number, status: string | null, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const res = await cloud.api('GET', `/v4/node/instances/${nodeId}/disks/${diskId}`);
    last = res.status === 404 ? 'gone' : res.body.status;
    if (last === (status ?? 'gone')) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`disk ${diskId} is ${last}, not ${status ?? 'gone'}:\n${cloud.server().output().slice(-4000)}`);
}

async function waitForImage(cloud: RealCloud, imageId: string, status: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const res = await cloud.api('GET', `/v4/images/${imageId}`);
    last = res.status === 404 ? 'gone' : res.body.status;
    if (last === status) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`image ${imageId} is ${last}, not ${status}:\n${cloud.server().output().slice(-4000)}`);
}

test(
  'copies are real: a disk cloned from a running node holds what its guest wrote, with its boot files; a node deployed from an image captured from that disk boots with it; so does a clone of the node',
  needs(...REAL_NODE_TOOLS),
  async (t) => {
    const cloud = await startRealCloud(t, { CUMULO_NODE_NETWORK: 'user' });
    await storeBusybox(cloud);
    const key = await sshKeyPair(t);
    // A large swap leaves the main disk small; deleting the swap makes room for the main disk's copy.
    const a = await createRealNode(cloud, {
      image: 'node/busybox',
      label: 'node-a',
      publicKey: key.publicKey,
      extra: { swap_size: 23000 },
    });
    await cloud.waitForStatus(a, 'running');
    const { target } = await forwardedSsh(cloud, a, key.privateKey);
    await sshRun(target, 'echo written-on-a > /root/marker && sync');

    const disks = (await cloud.api('GET', `/v4/node/instances/${a}/disks`)).body.data as {
      id: number;
      filesystem: string;
      size: number;
    }[];
    const main = disks.find((d) => d.filesystem === 'ext4');
    const swap = disks.find((d) => d.filesystem === 'swap');
    assert.ok(main && swap, JSON.stringify(disks));
    assert.equal((await cloud.api('DELETE', `/v4/node/instances/${a}/disks/${swap.id}`)).status, 200);
    await waitForDisk(cloud, a, swap.id, null);

    const started = Date.now();
    const cloned = await cloud.api('POST', `/v4/node/instances/${a}/disks/${main.id}/clone`, {});
    assert.equal(cloned.status, 200, JSON.stringify(cloned.body));
    await waitForDisk(cloud, a, cloned.body.id, 'ready');
    t.diagnostic(`disk clone: ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const copy = diskFiles(path.join(cloud.dataDir, 'compute'), `disk-${cloned.body.id}`);
    assert.equal(await readExt4File(copy.disk, '/root/marker'), 'written-on-a\n');
    const source = diskFiles(path.join(cloud.dataDir, 'compute'), `disk-${main.id}`);
    assert.equal(fs.statSync(copy.disk).size, fs.statSync(source.disk).size);
    assert.ok(fs.statSync(copy.disk).blocks * 512 < fs.statSync(copy.disk).size / 2, 'the copy is sparse');
    assert.deepEqual(fs.readFileSync(copy.kernel), fs.readFileSync(source.kernel));
    assert.deepEqual(fs.readFileSync(copy.initrd), fs.readFileSync(source.initrd));
    // The source's machine was paused for the copy and runs on.
    assert.equal(await sshRun(target, 'cat /root/marker'), 'written-on-a\n');

    // An image captured from A's disk (A running: paused while its disk is read) deploys a node B that has A's file.
    const captureStarted = Date.now();
    const image = await cloud.api('POST', '/v4/images', { disk_id: main.id, label: 'captured-a' });
    assert.equal(image.status, 200, JSON.stringify(image.body));
    await waitForImage(cloud, image.body.id, 'available');
    t.diagnostic(`image capture: ${((Date.now() - captureStarted) / 1000).toFixed(1)} s`);
    const captured = (await cloud.api('GET', `/v4/images/${image.body.id}`)).body;
    assert.ok(
      captured.size > 0 && captured.size < main.size / 4,
      `the image's size is what its filesystem holds (${captured.size} MB), not the disk's (${main.size} MB)`,
    );
    const b = await createRealNode(cloud, { image: image.body.id, label: 'node-b', publicKey: key.publicKey });
    await cloud.waitForStatus(b, 'running');
    const { target: targetB } = await forwardedSsh(cloud, b, key.privateKey);
    assert.equal(await sshRun(targetB, 'cat /root/marker'), 'written-on-a\n');
    assert.equal(await sshRun(targetB, 'hostname'), 'node-b\n');
    assert.equal(await sshRun(target, 'hostname'), 'node-a\n');

    // A's clone to a new node C (A running): C's disks are copies of A's, each where its config expects it.
    const cloneStarted = Date.now();
    const c = await cloud.api('POST', `/v4/node/instances/${a}/clone`, {
      region: 'us-east',
      type: 'g6-nanode-1',
      label: 'node-c',
    });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    await cloud.waitForStatus(c.body.id, 'offline');
    t.diagnostic(`node clone: ${((Date.now() - cloneStarted) / 1000).toFixed(1)} s`);
    const cDisks = (await cloud.api('GET', `/v4/node/instances/${c.body.id}/disks`)).body.data as {
      id: number;
      filesystem: string;
    }[];
    // Without `disks`, a clone copies the disks A's configs use: its main disk, not the copy made above.
    assert.deepEqual(
      cDisks.map((d) => d.filesystem),
      ['ext4'],
    );
    for (const disk of cDisks) {
      const files = diskFiles(path.join(cloud.dataDir, 'compute'), `disk-${disk.id}`);
      assert.equal(await readExt4File(files.disk, '/root/marker'), 'written-on-a\n', `disk ${disk.id} of C`);
    }

    // C boots (a clone is left powered off) with A's files and, by the network helper, its own addresses.
    assert.equal((await cloud.api('POST', `/v4/node/instances/${c.body.id}/boot`, {})).status, 200);
    await cloud.waitForStatus(c.body.id, 'running');
    const { target: targetC } = await forwardedSsh(cloud, c.body.id, key.privateKey);
    assert.equal(await sshRun(targetC, 'cat /root/marker'), 'written-on-a\n');
    const cIp = (await cloud.api('GET', `/v4/node/instances/${c.body.id}`)).body.ipv4[0] as string;
    assert.match(await sshRun(targetC, 'ip -4 addr show eth0'), new RegExp(`inet ${cIp.replaceAll('.', '\\.')}/24`));
  },
);
