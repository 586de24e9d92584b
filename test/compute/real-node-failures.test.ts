import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { machineFiles } from '../../src/compute/qemu/data-layout.ts';
import { livePid } from '../../src/compute/qemu/qemu-process.ts';
import { BLOBS_DIR, COMPUTE_DIR } from '../../src/data-dir.ts';
import { tempDir } from '../helpers/app.ts';
import { backupWindowAwayFromNow } from '../helpers/backup-window.ts';
import {
  createRealNode,
  eventEnd,
  killMachinesUnder,
  REAL_NODE_TOOLS,
  sshKeyPair,
  startRealCloud,
  storeBusybox,
} from '../helpers/real-nodes.ts';
import { needs, systemTool } from '../helpers/system-tools.ts';

const run = promisify(execFile);

/**
 * A `qemu-system-x86_64` first on PATH that fails as QEMU does when it cannot start a machine while
 * the file `fails` exists, and is the real one otherwise.
 */
function failingQemu(dir: string, fails: string): string {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const script = [
    '#!/bin/sh',
    `if [ -e '${fails}' ]; then echo 'qemu-system-x86_64: could not open disk image: Input/output error' >&2; exit 1; fi`,
    `exec '${systemTool('qemu-system-x86_64')}' "$@"`,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(bin, 'qemu-system-x86_64'), script, { mode: 0o755 });
  return bin;
}

test(
  'real work that fails for good ends its event failed with the node offline and no machine left; the node boots once the host is mended',
  needs(...REAL_NODE_TOOLS),
  async (t) => {
    const dir = tempDir(t);
    const fails = path.join(dir, 'qemu-fails');
    const bin = failingQemu(dir, fails);
    const cloud = await startRealCloud(t, { PATH: `${bin}:${process.env.PATH ?? ''}` });
    await storeBusybox(cloud);
    const key = await sshKeyPair(t);
    fs.writeFileSync(fails, '');
    const id = await createRealNode(cloud, { image: 'node/busybox', label: 'unlucky', publicKey: key.publicKey });

    let created: { status: string; percent_complete: number } | undefined;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const events = (await cloud.api('GET', '/v4/account/events?page_size=25')).body.data as {
        action: string;
        status: string;
        percent_complete: number;
        entity: { id: number } | null;
      }[];
      created = events.find((e) => e.action === 'node_create' && e.entity?.id === id);
      if (created?.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(created?.status, 'failed', 'three starts that fail fail the create');
    const node = (await cloud.api('GET', `/v4/node/instances/${id}`)).body;
    assert.equal(node.status, 'offline');
    const machine = machineFiles(path.join(cloud.dataDir, COMPUTE_DIR), `node-${id}`);
    assert.equal(livePid(machine.pid), null, 'no QEMU process is left for the node');
    assert.match(cloud.server().output(), /could not open disk image/, "QEMU's own error is in the log");

    fs.rmSync(fails);
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/boot`, {})).status, 200);
    await cloud.waitForStatus(id, 'running');
    const disks = (await cloud.api('GET', `/v4/node/instances/${id}/disks`)).body.data as { status: string }[];
    assert.deepEqual(
      disks.map((d) => d.status),
      ['ready', 'ready'],
    );
  },
);

test(
  'a snapshot onto full backup storage fails its event and its backup, keeps no partial copy, and the next one succeeds once there is room',
  needs(...REAL_NODE_TOOLS),
  async (t) => {
    // The blob store (images, backups) on a filesystem of its own, small enough to fill: a tmpfs (root only).
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-test-full-'));
    const blobs = path.join(data, BLOBS_DIR);
    fs.mkdirSync(blobs);
    await run('mount', ['-t', 'tmpfs', '-o', 'size=256m', 'tmpfs', blobs]);
    const backups = path.join(blobs, 'backups');
    const cloud = await startRealCloud(t, { CUMULO_DATA_DIR: data });
    // After the cloud's own hooks (the server ended): its machines, then the filesystem, then the folder.
    t.after(async () => {
      await killMachinesUnder(data);
      await run('umount', ['-l', blobs]);
      fs.rmSync(data, { recursive: true, force: true });
    });
    await storeBusybox({ ...cloud, dataDir: data });
    const key = await sshKeyPair(t);
    const id = await createRealNode(cloud, {
      image: 'node/busybox',
      label: 'cramped',
      publicKey: key.publicKey,
      extra: { booted: false },
    });
    await cloud.waitForStatus(id, 'offline');
    const schedule = { window: backupWindowAwayFromNow() };
    assert.equal((await cloud.api('PUT', `/v4/node/instances/${id}`, { backups: { schedule } })).status, 200);
    assert.equal((await cloud.api('POST', `/v4/node/instances/${id}/backups/enable`, {})).status, 200);

    // All but a few blocks taken: the node's disks no longer fit.
    const filler = path.join(blobs, 'filler');
    const { stdout } = await run('df', ['--output=avail', '-B1', blobs]);
    await run('fallocate', ['-l', String(Number(stdout.trim().split('\n').at(-1)) - 64 * 1024), filler]);
    const taken = await cloud.api('POST', `/v4/node/instances/${id}/backups`, { label: 'no-room' });
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    assert.equal(await eventEnd(cloud, id, 'node_snapshot'), 'failed', 'copying the disks failed three times');
    const failed = (await cloud.api('GET', `/v4/node/instances/${id}/backups/${taken.body.id}`)).body;
    assert.equal(failed.status, 'failed', 'the backup says so');
    const listed = (await cloud.api('GET', `/v4/node/instances/${id}/backups`)).body.snapshot;
    assert.deepEqual(listed, { current: null, in_progress: null }, 'and is neither the current snapshot nor one being taken');
    assert.deepEqual(fs.existsSync(backups) ? fs.readdirSync(backups) : [], [], 'no partial copy is kept');
    assert.equal((await cloud.api('GET', `/v4/node/instances/${id}`)).body.status, 'offline', 'the node is as it was');
    assert.match(cloud.server().output(), /ENOSPC|no space left/i, 'the cause is in the log');

    fs.rmSync(filler);
    const retaken = await cloud.api('POST', `/v4/node/instances/${id}/backups`, { label: 'room' });
    assert.equal(retaken.status, 200, JSON.stringify(retaken.body));
    assert.equal(await eventEnd(cloud, id, 'node_snapshot'), 'finished');
    const current = (await cloud.api('GET', `/v4/node/instances/${id}/backups`)).body.snapshot.current;
    assert.equal(current?.label, 'room');
    assert.equal(current?.status, 'successful');
    // Stored from another filesystem (staging is on the data dir's), the copies kept their holes.
    const copies = fs.readdirSync(path.join(backups, String(current.id)), { recursive: true, withFileTypes: true });
    const disks = copies
      .filter((f) => f.isFile() && /^disk-\d+\.img$/.test(f.name))
      .map((f) => fs.statSync(path.join(f.parentPath, f.name)));
    assert.equal(disks.length, 2, 'a copy of each disk');
    for (const disk of disks)
      assert.ok(disk.blocks * 512 < disk.size / 10, `a sparse copy: ${disk.blocks * 512} of ${disk.size} bytes`);
  },
);
