import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { busybox } from '../../src/compute/images/busybox.ts';
import { debian12 } from '../../src/compute/images/debian12.ts';
import { type BootImage, buildImage } from '../../src/compute/images/recipe.ts';
import { readExt4File } from '../../src/compute/qemu/ext4-settings.ts';
import { publicImageKeys } from '../../src/domain/images/public-image-data.ts';
import { needs } from '../helpers/system-tools.ts';
import { cumulo, operatorApp } from '../operator/helpers.ts';

const TOOLS = needs('mmdebstrap', 'mke2fs', 'debugfs');
function headOf(file: string, bytes: number, offset = 0): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    fs.readSync(fd, buffer, 0, bytes, offset);
    return buffer;
  } finally {
    fs.closeSync(fd);
  }
}

/** The three files are what they claim: a kernel bzImage, a newc cpio or gzip initrd, an ext4 filesystem. */
async function assertBootImage(image: BootImage): Promise<void> {
  assert.equal(headOf(image.kernel, 4, 0x202).toString('latin1'), 'HdrS', 'the kernel is a bzImage');
  const initrd = headOf(image.initrd, 6);
  assert.ok(initrd.toString('latin1') === '070701' || (initrd[0] === 0x1f && initrd[1] === 0x8b), 'the initrd is a cpio archive');
  assert.equal(headOf(image.disk, 2, 1024 + 0x38).readUInt16LE(0), 0xef53, 'the disk holds an ext2/3/4 superblock');
}

describe('image recipes', TOOLS, () => {
  test('busybox: a kernel, a cpio initrd and a 64 MB ext4 root', async () => {
    const image = await buildImage(busybox);
    await assertBootImage(image);
    assert.equal(fs.statSync(image.disk).size, 64 * 1024 * 1024);
    assert.match((await readExt4File(image.disk, '/etc/inittab')) ?? '', /ttyS0/);
    assert.deepEqual(await buildImage(busybox), image, 'found in the cache');
  });

  test('debian12: a kernel, an initrd with virtio_blk and an ext4 root, built without host keys, machine id or root password (booted through the API in real-nodes-debian.test.ts)', async () => {
    const image = await buildImage(debian12);
    await assertBootImage(image);
    assert.equal(await readExt4File(image.disk, '/etc/ssh/ssh_host_ed25519_key'), undefined, 'no host key baked in');
    assert.equal(await readExt4File(image.disk, '/etc/machine-id'), '', 'no machine id baked in');
    assert.match(
      (await readExt4File(image.disk, '/etc/shadow')) ?? '',
      /^root:!/m,
      'root is locked until the deploy sets a password',
    );
  });

  test('cumulo images build stores the build as blobs linked to the cache; cumulo images lists what is built', async (t) => {
    const app = await operatorApp(t, 'sqlite');
    const before = await cumulo(app, ['images']);
    assert.equal(before.code, 0, before.stderr);
    assert.deepEqual(JSON.parse(before.stdout).data, [
      { id: 'node/debian12', label: 'Debian 12', recipe: 'debian12', built: false },
      { id: 'node/busybox', label: 'Busybox (small test image)', recipe: 'busybox', built: false },
    ]);

    const built = await cumulo(app, ['images', 'build', 'busybox']);
    assert.equal(built.code, 0, built.stderr);
    const image = await buildImage(busybox);
    const answer = JSON.parse(built.stdout);
    assert.equal(answer.recipe, 'busybox');
    assert.deepEqual(answer.images, ['node/busybox']);
    assert.equal(answer.bytes.disk, fs.statSync(image.disk).size);
    const keys = publicImageKeys('busybox');
    for (const part of ['disk', 'kernel', 'initrd'] as const) {
      const stored = await app.runtime.ctx.blobs.localPath(keys[part]);
      assert.ok(stored, part);
      assert.equal(fs.statSync(stored).ino, fs.statSync(image[part]).ino, `${part} is linked, not copied`);
    }

    const after = await cumulo(app, ['images']);
    assert.deepEqual(
      JSON.parse(after.stdout).data.map((i: { recipe: string; built: boolean }) => [i.recipe, i.built]),
      [
        ['debian12', false],
        ['busybox', true],
      ],
    );
    const unknown = await cumulo(app, ['images', 'build', 'arch']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No recipe "arch"; known: busybox, debian12/);
  });
});
