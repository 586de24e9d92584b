import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { capturedImageKey, imageFiles, unbuiltImageReason } from '../../src/domain/images/image-files.ts';
import { publicImageFiles, storePublicImage } from '../../src/domain/images/public-image-data.ts';
import { insertPrivateImage } from '../catalog/helpers.ts';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, tempDir } from '../helpers/app.ts';

describe('whether a public image can run on real nodes', () => {
  test('it needs a recipe, and that recipe built on this server; the refusal says how to build it', () => {
    assert.equal(
      unbuiltImageReason('node/debian12', 'debian12', false),
      'Image node/debian12 is not built on this server; an operator builds it with: npx cumulo images build debian12',
    );
    assert.equal(
      unbuiltImageReason('node/arch', undefined, false),
      'Image node/arch cannot run on real nodes: this server has no recipe to build it',
    );
    assert.equal(unbuiltImageReason('node/debian12', 'debian12', true), null);
  });
});

for (const dialect of DIALECTS) {
  describe(`image files [${dialect}]`, () => {
    test('a public image is its stored build; a private one its uploaded data (gzip); anything else is an error', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { ctx } = app.runtime;
      await assert.rejects(imageFiles(ctx, 'node/busybox'), /npx cumulo images build busybox/);
      await assert.rejects(imageFiles(ctx, 'node/arch'), /cannot run on real nodes/);
      assert.equal(await publicImageFiles(ctx.blobs, 'busybox'), null);

      const built = tempDir(t);
      const image = {
        disk: path.join(built, 'disk.img'),
        kernel: path.join(built, 'vmlinuz'),
        initrd: path.join(built, 'initrd.img'),
      };
      for (const [part, file] of Object.entries(image)) fs.writeFileSync(file, part);
      await storePublicImage(ctx.blobs, 'busybox', image);
      const files = await imageFiles(ctx, 'node/busybox');
      assert.equal(files.format, 'raw');
      assert.equal(fs.readFileSync(files.disk, 'utf8'), 'disk');
      assert.equal(fs.readFileSync(files.kernel ?? '', 'utf8'), 'kernel');
      assert.equal(fs.readFileSync(files.initrd ?? '', 'utf8'), 'initrd');
      assert.ok(files.disk.startsWith(path.join(app.dataDir, 'blobs', 'public', 'busybox')), files.disk);
      assert.deepEqual(await publicImageFiles(ctx.blobs, 'busybox'), files);

      const me = await admin(app);
      await ctx.blobs.put('images/1/9.img.gz', Readable.from([Buffer.from('gzipped disk')]));
      const uploaded = await insertPrivateImage(app, me.accountId, { blob_key: 'images/1/9.img.gz' });
      const privateFiles = await imageFiles(ctx, uploaded.id);
      assert.equal(privateFiles.format, 'gzip');
      assert.equal(fs.readFileSync(privateFiles.disk, 'utf8'), 'gzipped disk');
      assert.equal(privateFiles.kernel, undefined);
      // A deploy unpacks no more than the image was measured at (2048 MB) ...
      assert.equal(privateFiles.maxUnpackedBytes, 2048 * 1024 * 1024);
      // ... nor, for an upload, than uploads may unpack to (16 GiB); a capture may be larger.
      const large = await insertPrivateImage(app, me.accountId, { blob_key: 'images/1/10.img.gz', size: 40_000 });
      await ctx.blobs.put('images/1/10.img.gz', Readable.from([Buffer.from('gzipped disk')]));
      assert.equal((await imageFiles(ctx, large.id)).maxUnpackedBytes, 16 * 1024 ** 3);
      const captured = await insertPrivateImage(app, me.accountId, { size: 40_000 });
      await assert.rejects(imageFiles(ctx, captured.id), /has no data on this server/);
      const capturedKey = capturedImageKey(me.accountId, captured.num);
      await ctx.blobs.put(capturedKey, Readable.from([Buffer.from('gzipped disk')]));
      await app.runtime.ctx.db.updateTable('images').set({ blob_key: capturedKey }).where('num', '=', captured.num).execute();
      assert.equal((await imageFiles(ctx, captured.id)).maxUnpackedBytes, 40_000 * 1024 * 1024);
      await assert.rejects(imageFiles(ctx, 'private/999999'), /has no data on this server/);
    });
  });
}
