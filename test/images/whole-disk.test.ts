import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode, IMAGE, ROOT_PASS } from '../nodes/helpers.ts';
import { eventsOf, MIB, settle, uploadPath } from './helpers.ts';

/** A disk with an MBR partition table: the boot signature and one bootable Linux partition from sector 2048. */
function mbrDisk(bytes = 2 * MIB): Buffer {
  const disk = Buffer.alloc(bytes);
  disk[446] = 0x80;
  disk[450] = 0x83;
  disk.writeUInt32LE(2048, 454);
  disk.writeUInt32LE(bytes / 512 - 2048, 458);
  disk.writeUInt16BE(0x55aa, 510);
  return disk;
}

/** A disk with a GPT (its protective MBR left out: the header's signature is what counts). */
function gptDisk(): Buffer {
  const disk = Buffer.alloc(MIB);
  disk.write('EFI PART', 512, 'latin1');
  return disk;
}

/** A bare ext filesystem: the superblock's magic at byte 1080. */
function extFilesystem(): Buffer {
  const fs = Buffer.alloc(MIB);
  fs.writeUInt16LE(0xef53, 1080);
  return fs;
}

/** A private image of `data` (gzipped) uploaded through the API and processed. */
async function uploaded(app: TestApp, data: Buffer): Promise<string> {
  const res = await app.request('POST', '/v4/images/upload', { body: { label: 'disk-image', region: 'us-east' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const put = await app.request('PUT', uploadPath(res.body.upload_to), {
    token: null,
    headers: { 'content-type': 'application/octet-stream' },
    body: gzipSync(data),
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  await settle(app);
  const image = await app.request('GET', `/v4/images/${res.body.image.id}`);
  assert.equal(image.body.status, 'available');
  return res.body.image.id;
}

for (const dialect of DIALECTS) {
  describe(`images onto raw disks [${dialect}]`, () => {
    test('an uploaded whole-disk image deploys onto a raw disk, which gets its data as it is', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const mbr = await uploaded(app, mbrDisk());
      const gpt = await uploaded(app, gptDisk());
      const node = await createEmptyNode(app, { type: 'g6-nanode-1' });
      const base = `/v4/node/instances/${node.id}/disks`;

      const res = await app.request('POST', base, {
        body: { size: 2048, filesystem: 'raw', image: mbr, root_pass: ROOT_PASS, label: 'whole' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        [res.body.label, res.body.size, res.body.filesystem, res.body.status],
        ['whole', 2048, 'raw', 'not ready'],
      );
      await settle(app);
      assert.equal((await app.request('GET', `${base}/${res.body.id}`)).body.status, 'ready');
      const [event] = await eventsOf(app, me.accountId, 'disk_create');
      assert.equal(event?.status, 'finished');
      const row = await app.runtime.ctx.db.selectFrom('disks').select('image').where('id', '=', res.body.id).executeTakeFirst();
      assert.equal(row?.image, mbr);

      const fromGpt = await app.request('POST', base, {
        body: { size: 1024, filesystem: 'raw', image: gpt, root_pass: ROOT_PASS },
      });
      assert.equal(fromGpt.status, 200, JSON.stringify(fromGpt.body));
      await settle(app);
      // As before: a whole-disk image onto ext4 too (its partitions as they are, without settings).
      const ext4 = await app.request('POST', base, { body: { size: 1024, image: mbr, root_pass: ROOT_PASS } });
      assert.deepEqual([ext4.status, ext4.body.filesystem], [200, 'ext4']);
    });

    test('a raw disk takes any image as it is (a filesystem, anything uploaded, a public image); swap and initrd take none', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const whole = await uploaded(app, mbrDisk(3 * MIB));
      const ext = await uploaded(app, extFilesystem());
      const text = await uploaded(app, Buffer.from('a raw disk image, more or less\n'.repeat(100)));
      const node = await createEmptyNode(app, { type: 'g6-nanode-1' });
      const base = `/v4/node/instances/${node.id}/disks`;
      for (const image of [ext, text, IMAGE]) {
        const res = await app.request('POST', base, { body: { size: 2048, filesystem: 'raw', image, root_pass: ROOT_PASS } });
        assert.deepEqual([res.status, res.body.filesystem], [200, 'raw'], `${image}: ${JSON.stringify(res.body)}`);
        await settle(app);
      }
      const made = (await app.request('GET', base)).body.data as { filesystem: string; status: string }[];
      assert.deepEqual(
        made.map((d) => [d.filesystem, d.status]),
        [
          ['raw', 'ready'],
          ['raw', 'ready'],
          ['raw', 'ready'],
        ],
      );
      const cases: [Record<string, unknown>, string][] = [
        [{ filesystem: 'swap', image: whole }, 'filesystem'],
        [{ filesystem: 'initrd', image: whole }, 'filesystem'],
        [{ filesystem: 'raw', image: whole, size: 2 }, 'size'],
        [{ filesystem: 'raw', image: whole, root_pass: undefined }, 'root_pass'],
      ];
      for (const [overrides, field] of cases) {
        const body = { size: 1024, root_pass: ROOT_PASS, ...overrides };
        const res = await app.request('POST', base, { body });
        assert.deepEqual([res.status, res.body.errors?.[0]?.field], [400, field], JSON.stringify(overrides));
      }
      assert.equal((await app.request('GET', base)).body.results, 3, 'no disk made by a refusal');
    });
  });
}
