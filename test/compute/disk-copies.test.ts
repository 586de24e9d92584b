import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { diskFiles } from '../../src/compute/qemu/data-layout.ts';
import { captureDiskFiles } from '../../src/compute/qemu/disk-capture.ts';
import { copyDiskFiles } from '../../src/compute/qemu/disk-copy.ts';
import { readExt4File, writeExt4Files } from '../../src/compute/qemu/ext4-settings.ts';
import { writeNetworkFiles } from '../../src/compute/qemu/network-helper.ts';
import { run } from '../../src/compute/qemu/run.ts';
import { tempDir } from '../helpers/app.ts';
import { needs } from '../helpers/system-tools.ts';

const MIB = 1024 * 1024;

/** Disk `key` under `dir`: a 64 MB ext4 filesystem holding /root/marker, with a kernel and initrd beside it. */
async function sourceDisk(dir: string, key: string): Promise<ReturnType<typeof diskFiles>> {
  const files = diskFiles(dir, key);
  fs.mkdirSync(files.folder, { recursive: true });
  fs.closeSync(fs.openSync(files.disk, 'w'));
  fs.truncateSync(files.disk, 64 * MIB);
  await run('mke2fs', ['-q', '-t', 'ext4', '-F', files.disk]);
  await writeExt4Files(files.disk, [{ path: '/root/marker', content: 'on the source\n', mode: 0o644 }]);
  fs.writeFileSync(files.kernel, 'kernel');
  fs.writeFileSync(files.initrd, 'initrd');
  return files;
}

test(
  'a disk copy is a sparse copy of the disk with its boot files, grown to its size; a failed one leaves nothing',
  needs('mke2fs', 'debugfs'),
  async (t) => {
    const dir = tempDir(t);
    const source = await sourceDisk(dir, 'disk-1');
    await copyDiskFiles(dir, 'disk-1', { key: 'disk-2', sizeMb: 96, filesystem: 'ext4' });
    const copy = diskFiles(dir, 'disk-2');
    assert.equal(await readExt4File(copy.disk, '/root/marker'), 'on the source\n');
    assert.equal(fs.statSync(copy.disk).size, 96 * MIB);
    assert.ok(fs.statSync(copy.disk).blocks * 512 < 32 * MIB, 'the copy is sparse');
    assert.equal(fs.readFileSync(copy.kernel, 'utf8'), 'kernel');
    assert.equal(fs.readFileSync(copy.initrd, 'utf8'), 'initrd');
    assert.deepEqual(fs.readdirSync(copy.folder).sort(), ['disk.img', 'initrd.img', 'vmlinuz']);

    fs.rmSync(source.kernel);
    fs.rmSync(source.initrd);
    await copyDiskFiles(dir, 'disk-1', { key: 'disk-2', sizeMb: 64, filesystem: 'ext4' });
    assert.deepEqual(fs.readdirSync(copy.folder), ['disk.img'], 'copied again, the boot files the source lacks are gone');

    await assert.rejects(copyDiskFiles(dir, 'disk-9', { key: 'disk-3', sizeMb: 64, filesystem: 'ext4' }), /disk-9 has no file/);
    assert.equal(fs.existsSync(diskFiles(dir, 'disk-3').folder), false);
  },
);

test(
  'a captured disk is its filesystem shrunk and gzipped, with its boot files; the network helper rewrites its addresses',
  needs('mke2fs', 'debugfs'),
  async (t) => {
    const dir = tempDir(t);
    const out = tempDir(t);
    await sourceDisk(dir, 'disk-1');
    const to = { disk: path.join(out, 'disk.img.gz'), kernel: path.join(out, 'vmlinuz'), initrd: path.join(out, 'initrd.img') };
    let read = 0;
    const result = await captureDiskFiles(dir, 'disk-1', to, async (work) => {
      read += 1;
      await work();
    });
    assert.equal(result.bootFiles, true);
    assert.equal(read, 1, 'the disk is read once, inside the pause');
    const raw = path.join(out, 'disk.img');
    fs.writeFileSync(raw, gunzipSync(fs.readFileSync(to.disk)));
    assert.ok(fs.statSync(raw).size < 64 * MIB, `shrunk: ${fs.statSync(raw).size} bytes`);
    assert.equal(result.sizeMb, Math.ceil(fs.statSync(raw).size / MIB), 'the size it deploys onto is what it unpacks to');
    assert.equal(await readExt4File(raw, '/root/marker'), 'on the source\n');
    assert.equal(fs.readFileSync(to.kernel, 'utf8'), 'kernel');
    assert.deepEqual(fs.readdirSync(out).sort(), ['disk.img', 'disk.img.gz', 'initrd.img', 'vmlinuz'], 'no staging file is left');

    await writeNetworkFiles(dir, 'disk-1', [{ interface: 'eth0', ipv4: ['192.0.2.30/24'], gateway4: '192.0.2.1' }]);
    assert.match((await readExt4File(diskFiles(dir, 'disk-1').disk, '/etc/network/interfaces.d/cumulo')) ?? '', /192\.0\.2\.30/);
  },
);
