import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { FsBlobStore } from '../../src/blob/fs-blob-store.ts';
import { RATIO_CHECKED_FROM_BYTES, UploadCheck, type UploadLimits } from '../../src/domain/images/upload-check.ts';
import { ApiError } from '../../src/errors.ts';
import { tempDir } from '../helpers/app.ts';
import { MIB, noise, zerosGzip } from './helpers.ts';

function files(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/** A stream that sends `good` chunks, then fails. */
function failingAfter(good: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      sent += 1;
      if (sent <= good) this.push(noise(1024, sent));
      else this.destroy(new Error('source broke'));
    },
  });
}

describe('filesystem blob store', () => {
  test('put streams into place under the key; exists, size and delete follow', async (t) => {
    const root = path.join(tempDir(t), 'blobs');
    const store = new FsBlobStore(root);
    const data = noise(300 * 1024);
    const { bytes } = await store.put('images/1/2.img.gz', Readable.from([data.subarray(0, 1000), data.subarray(1000)]));
    assert.equal(bytes, data.length);
    assert.deepEqual(files(root), ['images/1/2.img.gz']);
    assert.ok(fs.readFileSync(path.join(root, 'images/1/2.img.gz')).equals(data));
    assert.equal(await store.exists('images/1/2.img.gz'), true);
    assert.equal(await store.size('images/1/2.img.gz'), data.length);
    assert.equal(await store.size('images/1/3.img.gz'), null);
    await store.put('images/1/3.img.gz', Readable.from([data]));
    await store.delete('images/1/2.img.gz');
    await store.delete('images/1/2.img.gz');
    assert.equal(await store.exists('images/1/2.img.gz'), false);
    assert.deepEqual(files(root), ['images/1/3.img.gz']);
    await store.delete('images/1/3.img.gz');
    assert.deepEqual(files(root), []);
    assert.equal(fs.existsSync(path.join(root, 'images')), false, 'the folders it left empty go with the last blob');
    assert.equal(fs.existsSync(root), true, "the store's root stays");
  });

  test('a failing stream leaves nothing behind and does not replace an existing blob', async (t) => {
    const root = path.join(tempDir(t), 'blobs');
    const store = new FsBlobStore(root);
    await store.put('a/b', Readable.from([Buffer.from('kept')]));
    await assert.rejects(store.put('a/b', failingAfter(50)), /source broke/);
    await assert.rejects(store.put('a/c', failingAfter(0)), /source broke/);
    assert.deepEqual(files(root), ['a/b']);
    assert.equal(fs.readFileSync(path.join(root, 'a/b'), 'utf8'), 'kept');
  });

  test('putFile links a file on the same filesystem and copies one from another; localPath finds it', async (t) => {
    const dir = tempDir(t);
    const store = new FsBlobStore(path.join(dir, 'blobs'));
    const source = path.join(dir, 'disk.img');
    fs.writeFileSync(source, noise(4096));
    assert.deepEqual(await store.putFile('public/x/disk.img', source), { bytes: 4096 });
    const stored = await store.localPath('public/x/disk.img');
    assert.equal(stored, path.join(dir, 'blobs', 'public/x/disk.img'));
    assert.equal(fs.statSync(stored).ino, fs.statSync(source).ino, 'a hard link');
    assert.equal(await store.localPath('public/x/vmlinuz'), null);

    // /dev/shm is a tmpfs, another filesystem than the test's temporary directory.
    const elsewhere = fs.mkdtempSync('/dev/shm/cumulo-blob-');
    t.after(() => fs.rmSync(elsewhere, { recursive: true, force: true }));
    const far = path.join(elsewhere, 'vmlinuz');
    fs.writeFileSync(far, 'kernel');
    assert.deepEqual(await store.putFile('public/x/vmlinuz', far), { bytes: 6 });
    const copied = await store.localPath('public/x/vmlinuz');
    assert.ok(copied);
    assert.notEqual(fs.statSync(copied).ino, fs.statSync(far).ino);
    assert.equal(fs.readFileSync(copied, 'utf8'), 'kernel');
    await assert.rejects(store.putFile('public/x/initrd.img', path.join(dir, 'missing')), /ENOENT/);
    assert.deepEqual(files(path.join(dir, 'blobs')).sort(), ['public/x/disk.img', 'public/x/vmlinuz']);
  });

  test('clear removes every blob, or every blob but those under the folder kept', async (t) => {
    const root = path.join(tempDir(t), 'blobs');
    const store = new FsBlobStore(root);
    for (const key of ['public/debian12/disk.img', 'images/1/2.img.gz', 'publicity/x'])
      await store.put(key, Readable.from([Buffer.from(key)]));
    await store.clear({ keep: 'public' });
    assert.deepEqual(files(root), ['public/debian12/disk.img']);
    await store.clear();
    assert.deepEqual(files(root), []);
    await store.clear({ keep: 'public' });
  });

  test('keys that could leave the store are refused', async (t) => {
    const store = new FsBlobStore(path.join(tempDir(t), 'blobs'));
    for (const key of ['../x', '/etc/passwd', 'a/../../x', 'a//b', '.tmp/x', 'A/B', '']) {
      await assert.rejects(store.put(key, Readable.from([Buffer.from('x')])), /invalid blob key/, key);
      await assert.rejects(store.delete(key), /invalid blob key/, key);
    }
  });
});

describe('upload check', () => {
  async function run(input: Iterable<Buffer>, max = 1024 * 1024, limits: Partial<UploadLimits> = {}) {
    const check = new UploadCheck({ maxBytes: max, maxUnpackedBytes: 16 * 1024 * MIB, maxRatio: 100, ...limits });
    const out: Buffer[] = [];
    Readable.from(input).pipe(check);
    for await (const chunk of check) out.push(chunk as Buffer);
    return { data: Buffer.concat(out), uncompressed: check.uncompressedBytes, bytes: check.bytes };
  }

  test('passes gzip data through unchanged and counts both sizes', async () => {
    const raw = noise(100_000);
    const gz = gzipSync(raw);
    // The signature split across chunks is still recognized.
    const { data, uncompressed, bytes } = await run([gz.subarray(0, 1), gz.subarray(1, 500), gz.subarray(500)]);
    assert.ok(data.equals(gz));
    assert.equal(uncompressed, raw.length);
    assert.equal(bytes, gz.length);
  });

  test('refuses what is not gzip (400), truncated (400) or too large (413)', async () => {
    const gz = gzipSync(noise(50_000));
    const cases: [Buffer[], number, number][] = [
      [[Buffer.from('plain text')], 400, 1024],
      [[], 400, 1024],
      [[Buffer.from([0x1f])], 400, 1024],
      [[gz.subarray(0, gz.length - 10)], 400, 1024 * 1024],
      [[Buffer.from([0x1f, 0x8b, 0, 0, 0]), noise(100)], 400, 1024 * 1024],
      [[gz], 413, 1000],
    ];
    for (const [input, status, max] of cases) {
      await assert.rejects(run(input, max), (err) => err instanceof ApiError && err.status === status);
    }
  });

  test('refuses data that unpacks past the ceiling (400), as soon as it does', async () => {
    const gz = gzipSync(noise(2 * MIB));
    assert.equal((await run([gz], 4 * MIB, { maxUnpackedBytes: 2 * MIB })).uncompressed, 2 * MIB, 'at the ceiling is fine');
    await assert.rejects(
      run([gz], 4 * MIB, { maxUnpackedBytes: 2 * MIB - 1 }),
      (err) =>
        err instanceof ApiError && err.status === 400 && /unpacks to more than the 2097151 bytes allowed/.test(err.message),
    );
    // 200 MB of zeros in a few hundred KB: refused at the ceiling, not once it has all been unpacked.
    let sent = 0;
    const bomb = function* () {
      for (const member of zerosGzip(200)) {
        sent += member.length;
        yield member;
      }
    };
    await assert.rejects(
      run(bomb(), 4 * MIB, { maxUnpackedBytes: 16 * MIB }),
      (err) => err instanceof ApiError && err.status === 400,
    );
    assert.ok(sent < zerosGzip(200).reduce((n, m) => n + m.length, 0), 'the rest of the data was not read');
  });

  test('refuses data that unpacks to more than the ratio allows once past its first GiB; a small image of zeros passes', async () => {
    const small = await run(zerosGzip(64), 4 * MIB, { maxRatio: 2 });
    assert.equal(small.uncompressed, 64 * MIB, 'below the GiB the ratio is not checked');
    // 1.25 GiB of zeros (about 1000:1) against 100:1.
    assert.ok(1280 * MIB > RATIO_CHECKED_FROM_BYTES);
    const members = zerosGzip(1280);
    await assert.rejects(
      run(members, 64 * MIB),
      (err) =>
        err instanceof ApiError && err.status === 400 && /unpacks to more than 100 times its compressed size/.test(err.message),
    );
  });
});
