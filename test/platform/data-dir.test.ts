import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { buildTestApp, DIALECTS, tempDir } from '../helpers/app.ts';
import { createNode, settle } from '../nodes/helpers.ts';

/** Every entry under `dir` (itself included) with its permission bits, as `relative/path 700`. */
function modes(dir: string): string[] {
  const out: string[] = [];
  const walk = (entry: string) => {
    const stat = fs.lstatSync(entry);
    out.push(`${path.relative(dir, entry) || '.'}${stat.isDirectory() ? '/' : ''} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) walk(path.join(entry, name));
  };
  walk(dir);
  return out.sort();
}

function onlyOwner(entries: string[]): string[] {
  return entries.filter((e) => !(e.endsWith('/ 700') || (!e.includes('/ ') && e.endsWith(' 600'))));
}

for (const dialect of DIALECTS) {
  describe(`data dir permissions [${dialect}]`, () => {
    test('a fresh data dir and everything written in it are for the owner only (0700 dirs, 0600 files)', async (t) => {
      const dataDir = path.join(tempDir(t), 'data');
      const app = await buildTestApp(t, { dialect, config: { dataDir } });
      await createNode(app); // the root password hash needs the installation's secret key
      const upload = await app.request('POST', '/v4/images/upload', { body: { label: 'golden', region: 'eu-west' } });
      assert.equal(upload.status, 200);
      const put = await app.runtime.app?.inject({
        method: 'PUT',
        url: new URL(upload.body.upload_to).pathname,
        headers: { 'content-type': 'application/octet-stream' },
        payload: gzipSync(Buffer.from('a disk\n'.repeat(1000))),
      });
      assert.equal(put?.statusCode, 200, put?.body);
      await settle(app);

      const entries = modes(dataDir);
      const expected = ['secrets/root-pass.key', 'blobs/images/'];
      if (dialect === 'sqlite') expected.push('cumulo.sqlite', 'cumulo.sqlite-wal', 'cumulo.sqlite-shm');
      for (const name of expected)
        assert.ok(
          entries.some((e) => e.startsWith(name)),
          `${name} is in ${entries.join(', ')}`,
        );
      assert.ok(
        entries.some((e) => /^blobs\/images\/.+\.img\.gz /.test(e)),
        `an image blob is in ${entries.join(', ')}`,
      );
      assert.deepEqual(onlyOwner(entries), [], 'every dir is 0700 and every file 0600');
    });

    test('a start tightens an existing data dir and its files, and leaves the operator’s own files alone', async (t) => {
      const dataDir = path.join(tempDir(t), 'data');
      fs.mkdirSync(path.join(dataDir, 'blobs', 'images'), { recursive: true, mode: 0o755 });
      fs.mkdirSync(path.join(dataDir, 'secrets'), { mode: 0o755 });
      fs.writeFileSync(path.join(dataDir, 'cumulo.sqlite'), '', { mode: 0o644 });
      fs.writeFileSync(path.join(dataDir, 'blobs', 'images', 'old.img.gz'), 'x', { mode: 0o644 });
      fs.writeFileSync(path.join(dataDir, 'secrets', 'root-pass.key'), Buffer.alloc(32, 7).toString('base64'), { mode: 0o644 });
      fs.writeFileSync(path.join(dataDir, 'notes.txt'), 'mine', { mode: 0o644 });
      for (const dir of ['', 'blobs', 'blobs/images', 'secrets']) fs.chmodSync(path.join(dataDir, dir), 0o755);

      await buildTestApp(t, { dialect, config: { dataDir } });
      const entries = modes(dataDir);
      assert.deepEqual(onlyOwner(entries), ['notes.txt 644'], entries.join(', '));
      assert.ok(entries.includes('./ 700') && entries.includes('blobs/images/old.img.gz 600'), entries.join(', '));
    });
  });
}
