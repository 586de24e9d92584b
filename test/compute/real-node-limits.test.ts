import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { storePublicImage } from '../../src/domain/images/public-image-data.ts';
import { buildTestApp, DIALECTS, type TestApp, tempDir } from '../helpers/app.ts';

/** Stands in for a built busybox image: the API checks that the files are there, not what they hold. */
async function storeBusyboxFiles(app: TestApp, dir: string): Promise<void> {
  const image = { disk: path.join(dir, 'disk.img'), kernel: path.join(dir, 'vmlinuz'), initrd: path.join(dir, 'initrd.img') };
  for (const file of Object.values(image)) fs.writeFileSync(file, 'x');
  await storePublicImage(app.runtime.ctx.blobs, 'busybox', image);
}

const nanode = (label: string, image: string, extra: Record<string, unknown> = {}) => ({
  type: 'g6-nanode-1',
  region: 'us-east',
  image,
  label,
  root_pass: 'correct-Horse-battery-9',
  ...extra,
});

async function nodeCount(app: TestApp): Promise<number> {
  return (await app.request('GET', '/v4/node/instances')).body.results;
}

for (const dialect of DIALECTS) {
  describe(`what real nodes may not exceed [${dialect}]`, () => {
    test('an image not built here, memory the host does not have and a disk its storage cannot hold are 400s that make nothing', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { compute: 'qemu', computeMemoryMb: 1536 } });

      const unbuilt = await app.request('POST', '/v4/node/instances', { body: nanode('first', 'node/debian12') });
      assert.equal(unbuilt.status, 400);
      assert.equal(unbuilt.body.errors[0].field, 'image');
      assert.match(unbuilt.body.errors[0].reason, /npx cumulo images build debian12/);
      const unbuildable = await app.request('POST', '/v4/node/instances', { body: nanode('first', 'node/arch') });
      assert.equal(unbuildable.status, 400);
      assert.match(unbuildable.body.errors[0].reason, /cannot run on real nodes/);
      assert.equal(await nodeCount(app), 0);

      await storeBusyboxFiles(app, tempDir(t));
      const first = await app.request('POST', '/v4/node/instances', { body: nanode('first', 'node/busybox') });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      // 1024 MB of the 1536 are taken by the first node (being built, to run); a second does not fit.
      const second = await app.request('POST', '/v4/node/instances', { body: nanode('second', 'node/busybox') });
      assert.equal(second.status, 400);
      assert.equal(second.body.errors[0].field, 'type');
      assert.match(second.body.errors[0].reason, /needs 1024 MB and 512 MB of the host's 1536 MB for nodes is free/);
      assert.equal(await nodeCount(app), 1);

      // An empty node of the largest plan (no disk, not booted: no memory either), then a disk of all its storage.
      const empty = await app.request('POST', '/v4/node/instances', {
        body: { type: 'g6-dedicated-64', region: 'us-east', label: 'empty' },
      });
      assert.equal(empty.status, 200, JSON.stringify(empty.body));
      const huge = await app.request('POST', `/v4/node/instances/${empty.body.id}/disks`, {
        body: { label: 'huge', size: 7_372_800, filesystem: 'ext4' },
      });
      assert.equal(huge.status, 400, JSON.stringify(huge.body));
      assert.equal(huge.body.errors[0].field, 'size', JSON.stringify(huge.body));
      assert.match(huge.body.errors[0].reason, /Not enough free storage on the host for 7372800 MB/);
      const disks = await app.request('GET', `/v4/node/instances/${empty.body.id}/disks`);
      assert.deepEqual(disks.body.data, [], 'the disk is not made');
    });
  });
}
