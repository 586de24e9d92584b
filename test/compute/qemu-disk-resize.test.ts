import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { writeRootPassword } from '../../src/compute/qemu/disk-password.ts';
import { diskMinimumMb, resizeDiskFile } from '../../src/compute/qemu/disk-resize.ts';
import { readExt4File, statExt4File } from '../../src/compute/qemu/ext4-settings.ts';
import { tempDir } from '../helpers/app.ts';
import { needs } from '../helpers/system-tools.ts';

const exec = promisify(execFile);
const MIB = 1024 * 1024;

/** The size (bytes) of the ext filesystem in `file`, from its superblock. */
async function filesystemBytes(file: string): Promise<number> {
  const { stdout } = await exec('dumpe2fs', ['-h', file], { encoding: 'utf8' });
  return Number(/^Block count:\s+(\d+)/m.exec(stdout)?.[1]) * Number(/^Block size:\s+(\d+)/m.exec(stdout)?.[1]);
}

test(
  'an ext4 disk grows and shrinks with its filesystem, its files kept; a shrink below what it holds changes nothing',
  needs('mke2fs', 'debugfs'),
  async (t) => {
    const dir = tempDir(t);
    const root = path.join(dir, 'root');
    fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
    const data = crypto.randomBytes(20 * MIB).toString('base64');
    fs.writeFileSync(path.join(root, 'etc/data'), data);
    const file = path.join(dir, 'disk.img');
    await exec('mke2fs', ['-q', '-t', 'ext4', '-d', root, file, '64M']);
    const spec = { key: 'disk-1', filesystem: 'ext4' } as const;

    await resizeDiskFile(file, { ...spec, sizeMb: 128 });
    assert.deepEqual([fs.statSync(file).size, await filesystemBytes(file)], [128 * MIB, 128 * MIB]);
    assert.equal(await readExt4File(file, '/etc/data'), data);

    // Left as a guest that did not unmount it leaves it: resize2fs wants it checked first.
    await exec('debugfs', ['-w', '-R', 'ssv state 0', file]);
    const minimum = await diskMinimumMb(file, spec);
    assert.ok(minimum !== null && minimum > 27 && minimum < 120, `minimum ${minimum} MB for 27 MB of data`);
    await assert.rejects(resizeDiskFile(file, { ...spec, sizeMb: minimum - 1 }), /needs at least/);
    assert.deepEqual([fs.statSync(file).size, await filesystemBytes(file)], [128 * MIB, 128 * MIB], 'nothing changed');

    await resizeDiskFile(file, { ...spec, sizeMb: minimum + 4 });
    await resizeDiskFile(file, { ...spec, sizeMb: minimum + 4 });
    assert.deepEqual([fs.statSync(file).size, await filesystemBytes(file)], [(minimum + 4) * MIB, (minimum + 4) * MIB]);
    assert.equal(await readExt4File(file, '/etc/data'), data);
    await exec('e2fsck', ['-f', '-n', file]);
  },
);

test(
  'swap is formatted again at its new size, raw is cut or extended, a whole-disk image is grown but never shrunk',
  needs('mke2fs'),
  async (t) => {
    const dir = tempDir(t);
    const swap = path.join(dir, 'swap.img');
    fs.writeFileSync(swap, Buffer.alloc(0));
    fs.truncateSync(swap, 16 * MIB);
    await resizeDiskFile(swap, { key: 'disk-2', sizeMb: 32, filesystem: 'swap' });
    assert.equal(fs.statSync(swap).size, 32 * MIB);
    assert.equal(fs.readFileSync(swap).subarray(4086, 4096).toString(), 'SWAPSPACE2');
    assert.equal(await diskMinimumMb(swap, { filesystem: 'swap' }), null);

    const raw = path.join(dir, 'raw.img');
    fs.writeFileSync(raw, 'kept');
    fs.truncateSync(raw, 16 * MIB);
    await resizeDiskFile(raw, { key: 'disk-3', sizeMb: 8, filesystem: 'raw' });
    assert.equal(fs.statSync(raw).size, 8 * MIB);
    assert.equal(fs.readFileSync(raw).subarray(0, 4).toString(), 'kept');

    // An uploaded whole-disk image (partitions) on a disk labelled ext4.
    const whole = path.join(dir, 'whole.img');
    fs.writeFileSync(whole, 'partition table');
    fs.truncateSync(whole, 16 * MIB);
    await resizeDiskFile(whole, { key: 'disk-4', sizeMb: 24, filesystem: 'ext4' });
    assert.equal(fs.statSync(whole).size, 24 * MIB);
    await assert.rejects(resizeDiskFile(whole, { key: 'disk-4', sizeMb: 8, filesystem: 'ext4' }), /not shrunk/);
    assert.equal(fs.statSync(whole).size, 24 * MIB);
  },
);

test(
  'root password: the hash goes into /etc/shadow, which keeps its owner, mode and other users',
  needs('mke2fs', 'debugfs'),
  async (t) => {
    const dir = tempDir(t);
    const root = path.join(dir, 'root');
    fs.mkdirSync(path.join(root, 'etc'), { recursive: true });
    fs.writeFileSync(path.join(root, 'etc/shadow'), 'root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n', { mode: 0o640 });
    fs.chownSync(path.join(root, 'etc/shadow'), 0, 42);
    const file = path.join(dir, 'disk.img');
    await exec('mke2fs', ['-q', '-t', 'ext4', '-d', root, file, '16M']);

    await writeRootPassword(file, '$6$salt$hash');
    await writeRootPassword(file, '$6$salt2$hash2');
    assert.equal(
      await readExt4File(file, '/etc/shadow'),
      'root:$6$salt2$hash2:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n',
    );
    assert.deepEqual(await statExt4File(file, '/etc/shadow'), { mode: 0o640, uid: 0, gid: 42 });

    const raw = path.join(dir, 'raw.img');
    fs.writeFileSync(raw, Buffer.alloc(MIB));
    await assert.rejects(writeRootPassword(raw, '$6$salt$hash'), /no bare ext filesystem/);
  },
);
