import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { DeploySettings } from '../../src/compute/driver.ts';
import { diskCapacityMb } from '../../src/compute/qemu/disk-capacity.ts';
import { DiskStore, isExtFilesystem } from '../../src/compute/qemu/disk-store.ts';
import { readExt4File, statExt4File } from '../../src/compute/qemu/ext4-settings.ts';
import { tempDir } from '../helpers/app.ts';
import { capturedLog } from '../helpers/log.ts';
import { needs } from '../helpers/system-tools.ts';

const exec = promisify(execFile);
const MIB = 1024 * 1024;
const HASH = '$6$salt$hash';

const SETTINGS: DeploySettings = {
  hostname: 'node-two',
  rootPasswordHash: HASH,
  authorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDx root@laptop'],
  network: [{ interface: 'eth0', ipv4: ['192.0.2.20/24'], gateway4: '192.0.2.1' }],
  firstBoot: { script: '#!/bin/sh\ntrue\n', env: { NAME: "o'brien" } },
};

/** A small Debian-like root filesystem: /etc/shadow owned by group shadow (42), ifupdown's interfaces file, an OpenSSH server without host keys. */
async function debianLikeImage(dir: string): Promise<string> {
  const root = path.join(dir, 'root');
  fs.mkdirSync(path.join(root, 'etc/network'), { recursive: true });
  fs.mkdirSync(path.join(root, 'etc/ssh'), { recursive: true });
  fs.writeFileSync(path.join(root, 'etc/ssh/sshd_config'), 'Include /etc/ssh/sshd_config.d/*.conf\n');
  fs.writeFileSync(path.join(root, 'etc/shadow'), 'root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n', { mode: 0o640 });
  fs.chownSync(path.join(root, 'etc/shadow'), 0, 42);
  fs.writeFileSync(path.join(root, 'etc/network/interfaces'), 'source /etc/network/interfaces.d/*\n');
  fs.writeFileSync(path.join(root, 'etc/hosts'), '127.0.0.1 localhost\n127.0.1.1 debian\n');
  const image = path.join(dir, 'image.ext4');
  await exec('mke2fs', ['-q', '-t', 'ext4', '-d', root, image, '16M']);
  return image;
}

/**
 * The SSH host keys on the disk by type, their fingerprints: each a key pair (the public key is the
 * private key's), root's alone to read, named for the host.
 */
async function sshHostKeys(dir: string, disk: string): Promise<Record<string, string>> {
  const fingerprints: Record<string, string> = {};
  for (const type of ['rsa', 'ecdsa', 'ed25519']) {
    const name = `/etc/ssh/ssh_host_${type}_key`;
    if ((await statExt4File(disk, name)) === undefined) continue;
    assert.deepEqual(await statExt4File(disk, name), { mode: 0o600, uid: 0, gid: 0 });
    assert.deepEqual(await statExt4File(disk, `${name}.pub`), { mode: 0o644, uid: 0, gid: 0 });
    const key = path.join(dir, `host-${type}`);
    fs.writeFileSync(key, (await readExt4File(disk, name)) ?? '', { mode: 0o600 });
    const publicKey = (await readExt4File(disk, `${name}.pub`)) ?? '';
    assert.match(publicKey, / root@node-two\n$/);
    const derived = (await exec('ssh-keygen', ['-y', '-f', key])).stdout.split(' ').slice(0, 2).join(' ');
    assert.equal(derived, publicKey.split(' ').slice(0, 2).join(' '), `the ${type} public key is the private key's`);
    fingerprints[type] = (await exec('ssh-keygen', ['-l', '-f', key])).stdout;
  }
  return fingerprints;
}

async function blockCount(file: string): Promise<number> {
  const { stdout } = await exec('dumpe2fs', ['-h', file], { encoding: 'utf8' });
  return Number(/^Block count:\s+(\d+)/m.exec(stdout)?.[1]);
}

test(
  'blank disks: sparse files, ext3 and ext4 made, swap formatted, raw left zero; a second prepare leaves the disk',
  needs('mke2fs'),
  async (t) => {
    const dir = tempDir(t);
    const store = new DiskStore(dir, capturedLog().logger);
    for (const filesystem of ['ext3', 'ext4', 'swap', 'raw'] as const)
      await store.prepare({ key: `d-${filesystem}`, sizeMb: 64, filesystem });
    const file = (key: string) => path.join(dir, 'disks', key, 'disk.img');
    for (const key of ['d-ext3', 'd-ext4', 'd-swap', 'd-raw']) assert.equal(fs.statSync(file(key)).size, 64 * MIB);
    assert.ok(isExtFilesystem(file('d-ext3')) && isExtFilesystem(file('d-ext4')));
    assert.match((await exec('dumpe2fs', ['-h', file('d-ext3')])).stdout, /has_journal/);
    assert.doesNotMatch((await exec('dumpe2fs', ['-h', file('d-ext3')])).stdout, /extent/);
    assert.equal(fs.readFileSync(file('d-swap')).subarray(4086, 4096).toString(), 'SWAPSPACE2');
    assert.equal(fs.statSync(file('d-raw')).blocks, 0);
    fs.writeFileSync(file('d-raw'), 'kept');
    await store.prepare({ key: 'd-raw', sizeMb: 64, filesystem: 'raw' });
    assert.equal(fs.readFileSync(file('d-raw'), 'utf8'), 'kept');
    await store.delete('d-raw');
    await store.delete('d-raw');
    assert.equal(fs.existsSync(path.join(dir, 'disks', 'd-raw')), false);
    await assert.rejects(store.prepare({ key: '../x', sizeMb: 1, filesystem: 'raw' }), /not a compute key/);
  },
);

test(
  'deploying a gzip root filesystem grows it to the disk and writes every setting, keeping the owner of the files it replaces, with SSH host keys of its own',
  needs('mke2fs', 'debugfs', 'ssh-keygen'),
  async (t) => {
    const dir = tempDir(t);
    const image = await debianLikeImage(dir);
    const gz = path.join(dir, 'image.gz');
    fs.writeFileSync(gz, gzipSync(fs.readFileSync(image)));
    const kernel = path.join(dir, 'vmlinuz');
    fs.writeFileSync(kernel, 'kernel');
    const store = new DiskStore(path.join(dir, 'compute'), capturedLog().logger);
    const disk = { key: 'disk-9', sizeMb: 48, filesystem: 'ext4' } as const;
    await store.deploy(disk, { disk: gz, format: 'gzip', kernel }, SETTINGS);

    const folder = path.join(dir, 'compute', 'disks', 'disk-9');
    const file = path.join(folder, 'disk.img');
    assert.equal(fs.statSync(file).size, 48 * MIB);
    assert.equal((await blockCount(file)) * 1024, 48 * MIB, 'the filesystem fills the disk');
    assert.equal(fs.readFileSync(path.join(folder, 'vmlinuz'), 'utf8'), 'kernel');
    assert.equal(fs.existsSync(path.join(folder, 'initrd.img')), false);
    assert.deepEqual(fs.readdirSync(folder).sort(), ['disk.img', 'vmlinuz']);

    assert.equal(await readExt4File(file, '/etc/hostname'), 'node-two\n');
    assert.equal(await readExt4File(file, '/etc/hosts'), '127.0.0.1 localhost\n127.0.1.1\tnode-two\n');
    assert.equal(await readExt4File(file, '/etc/shadow'), `root:${HASH}:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n`);
    assert.deepEqual(await statExt4File(file, '/etc/shadow'), { mode: 0o640, uid: 0, gid: 42 });
    assert.match(
      (await readExt4File(file, '/etc/network/interfaces.d/cumulo')) ?? '',
      /iface eth0 inet static\n {4}address 192\.0\.2\.20\/24\n {4}gateway 192\.0\.2\.1/,
    );
    assert.equal(
      await readExt4File(file, '/etc/network/interfaces'),
      'source /etc/network/interfaces.d/*\n',
      "the image's own file is left",
    );
    assert.equal(await readExt4File(file, '/root/.ssh/authorized_keys'), `${SETTINGS.authorizedKeys[0]}\n`);
    assert.deepEqual(await statExt4File(file, '/root/.ssh/authorized_keys'), { mode: 0o600, uid: 0, gid: 0 });
    assert.deepEqual(await statExt4File(file, '/root/.ssh'), { mode: 0o700, uid: 0, gid: 0 });
    assert.deepEqual(await statExt4File(file, '/etc/cumulo/firstboot'), { mode: 0o700, uid: 0, gid: 0 });
    assert.equal(await readExt4File(file, '/etc/cumulo/firstboot.env'), 'NAME="o\'brien"\n');
    const hostKeys = await sshHostKeys(dir, file);
    assert.deepEqual(Object.keys(hostKeys), ['rsa', 'ecdsa', 'ed25519'], 'host keys of its own for its OpenSSH server');

    // Done again, it starts over: an image without a kernel leaves none, a raw image is copied sparse.
    await store.deploy(disk, { disk: image, format: 'raw' }, { ...SETTINGS, firstBoot: undefined });
    assert.deepEqual(fs.readdirSync(folder), ['disk.img']);
    assert.equal(await readExt4File(file, '/etc/cumulo/firstboot'), undefined);
    assert.notEqual((await sshHostKeys(dir, file)).ed25519, hostKeys.ed25519, 'a new disk, new host keys');
    assert.ok(fs.statSync(file).blocks * 512 < (48 * MIB) / 2);

    await assert.rejects(
      store.deploy({ ...disk, sizeMb: 8 }, { disk: image, format: 'raw' }, SETTINGS),
      /larger than the disk \(8 MB\)/,
    );
    assert.deepEqual(fs.readdirSync(folder), ['disk.img'], 'a failed deploy leaves the disk there was');
    assert.equal(await readExt4File(file, '/etc/hostname'), 'node-two\n');
  },
);

test(
  'a whole-disk gzip image is unpacked sparse and grown, without settings, and the log says so',
  needs('mke2fs'),
  async (t) => {
    const dir = tempDir(t);
    const wholeDisk = Buffer.alloc(4 * MIB);
    wholeDisk.write('partition table', 0);
    wholeDisk.write('a partition', 2 * MIB);
    const gz = path.join(dir, 'upload.img.gz');
    fs.writeFileSync(gz, gzipSync(wholeDisk));
    const { logger, lines } = capturedLog();
    const store = new DiskStore(dir, logger);
    await store.deploy({ key: 'disk-3', sizeMb: 16, filesystem: 'ext4' }, { disk: gz, format: 'gzip' }, SETTINGS);
    const file = path.join(dir, 'disks', 'disk-3', 'disk.img');
    const written = fs.readFileSync(file);
    assert.equal(written.length, 16 * MIB);
    assert.ok(written.subarray(0, 4 * MIB).equals(wholeDisk));
    assert.ok(fs.statSync(file).blocks * 512 <= 256 * 1024, 'only the blocks with data take space');
    assert.ok(lines.some((line) => line.includes('deployed without its settings') && line.includes('disk-3')));
  },
);

test('a raw disk gets the image data as it is, grown to its size, even an ext filesystem', needs('mke2fs'), async (t) => {
  const dir = tempDir(t);
  const wholeDisk = Buffer.alloc(4 * MIB);
  wholeDisk.writeUInt16BE(0x55aa, 510);
  wholeDisk.write('a partition', 2 * MIB);
  const gz = path.join(dir, 'upload.img.gz');
  fs.writeFileSync(gz, gzipSync(wholeDisk));
  const { logger, lines } = capturedLog();
  const store = new DiskStore(dir, logger);
  await store.deploy({ key: 'disk-4', sizeMb: 8, filesystem: 'raw' }, { disk: gz, format: 'gzip' }, SETTINGS);
  const written = fs.readFileSync(path.join(dir, 'disks', 'disk-4', 'disk.img'));
  assert.equal(written.length, 8 * MIB);
  assert.ok(written.subarray(0, 4 * MIB).equals(wholeDisk));
  assert.ok(written.subarray(4 * MIB).equals(Buffer.alloc(4 * MIB)));
  assert.ok(lines.some((line) => line.includes('onto a raw disk as it is') && line.includes('disk-4')));
  assert.ok(!lines.some((line) => line.includes('not a bare ext filesystem')), 'nothing to warn about');

  // An ext filesystem on a raw disk is not resized and gets no settings either.
  const image = await debianLikeImage(dir);
  const before = fs.readFileSync(image);
  await store.deploy({ key: 'disk-5', sizeMb: 32, filesystem: 'raw' }, { disk: image, format: 'raw' }, SETTINGS);
  const file = path.join(dir, 'disks', 'disk-5', 'disk.img');
  assert.ok(fs.readFileSync(file).subarray(0, before.length).equals(before));
  assert.equal(await readExt4File(file, '/etc/hostname'), undefined);
});

test('the room for disks is asked of the storage their files go on (a volume mounted for the disks alone), written or not', {
  skip: process.getuid?.() === 0 ? false : 'mounting a tmpfs needs root',
}, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-test-fits-'));
  const disks = path.join(dir, 'compute', 'disks');
  fs.mkdirSync(disks, { recursive: true });
  await exec('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', disks]);
  t.after(async () => {
    await exec('umount', ['-l', disks]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const compute = path.join(dir, 'compute');
  assert.equal(await diskCapacityMb(compute), 16, 'the disks volume, not the data dir');
  // What the disks have written is still theirs: free space and their files together.
  fs.mkdirSync(path.join(disks, 'disk-1'));
  fs.writeFileSync(path.join(disks, 'disk-1', 'disk.img'), Buffer.alloc(4 * MIB, 1));
  fs.truncateSync(path.join(disks, 'disk-1', 'disk.img'), 64 * MIB);
  assert.equal(await diskCapacityMb(compute), 16);
});

test('a gzip image stops unpacking at its ceiling or the disk size, whichever is less, and the disk is left as it was', async (t) => {
  const dir = tempDir(t);
  // 64 MiB of zeros in about 64 KB.
  const gz = path.join(dir, 'bomb.img.gz');
  fs.writeFileSync(gz, gzipSync(Buffer.alloc(64 * MIB)));
  const store = new DiskStore(dir, capturedLog().logger);
  const raw = { key: 'disk-6', sizeMb: 128, filesystem: 'raw' } as const;
  await assert.rejects(
    store.deploy(raw, { disk: gz, format: 'gzip', maxUnpackedBytes: 16 * MIB }, SETTINGS),
    /unpacks to more than 16777216 bytes/,
  );
  await assert.rejects(store.deploy({ ...raw, sizeMb: 8 }, { disk: gz, format: 'gzip' }, SETTINGS), /more than 8388608 bytes/);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'disks', 'disk-6')), [], 'nothing is left of either');
  await store.deploy(raw, { disk: gz, format: 'gzip', maxUnpackedBytes: 64 * MIB }, SETTINGS);
  assert.equal(fs.statSync(path.join(dir, 'disks', 'disk-6', 'disk.img')).size, 128 * MIB, 'at its ceiling it deploys');
});
