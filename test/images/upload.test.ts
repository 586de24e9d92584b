import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { createGzip } from 'node:zlib';
import { IMAGE_DATA_PATH } from '../../src/domain/images/image-upload.service.ts';
import { admin, newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { runDueJobs } from '../helpers/jobs.ts';
import { manualClock } from '../nodes/helpers.ts';
import {
  blobFiles,
  eventsOf,
  eventuallyNoBlobs,
  listen,
  MIB,
  noise,
  rawPut,
  settle,
  smallGzip,
  uploadPath,
  zerosGzip,
} from './helpers.ts';

const OCTETS = { 'content-type': 'application/octet-stream' };

async function startUpload(app: TestApp, token?: string) {
  const res = await app.request('POST', '/v4/images/upload', {
    body: { label: 'golden', region: 'eu-west', description: 'uploaded in a test' },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { image: { id: string; status: string }; upload_to: string };
}

/** `chunks` pieces of incompressible data, gzip-compressed on the fly as they are read. */
function gzipStream(chunks: number, chunkBytes = 64 * 1024): Readable {
  let i = 0;
  const source = new Readable({
    read() {
      i += 1;
      this.push(i <= chunks ? noise(chunkBytes, i) : null);
    },
  });
  return source.pipe(createGzip());
}

/** PUTs a stream with fetch (a streaming request body, no Content-Length). */
async function fetchPut(url: string, body: Readable, headers: Record<string, string> = OCTETS) {
  const res = await fetch(url, {
    method: 'PUT',
    headers,
    body: Readable.toWeb(body) as ReadableStream<Uint8Array>,
    duplex: 'half',
  } as RequestInit & { duplex: 'half' });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

for (const dialect of DIALECTS) {
  describe(`image upload [${dialect}]`, () => {
    test('POST /images/upload makes a pending_upload image and an absolute, unguessable upload URL', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const { image, upload_to } = await startUpload(app);
      assert.equal(image.status, 'pending_upload');
      assert.match(image.id, /^private\/\d+$/);
      assert.ok(upload_to.startsWith('http://localhost'), upload_to);
      const url = new URL(upload_to);
      assert.match(url.pathname, new RegExp(`^${IMAGE_DATA_PATH}/[0-9a-f]{64}$`));
      const token = url.pathname.split('/').at(-1) as string;
      const stored = await app.runtime.ctx.db.selectFrom('image_uploads').selectAll().executeTakeFirstOrThrow();
      assert.equal(stored.token_hash, crypto.createHash('sha256').update(token).digest('hex'));
      assert.notEqual(stored.token_hash, token);
      assert.equal(stored.account_id, me.accountId);
      assert.equal(stored.expires_at - app.runtime.ctx.clock.nowMs() <= 24 * 3600_000, true);
      const view = await app.request('GET', `/v4/images/${image.id}`);
      assert.equal(view.body.status, 'pending_upload');
      assert.equal(view.body.description, 'uploaded in a test');
      const second = await startUpload(app);
      assert.notEqual(second.upload_to, upload_to);
    });

    test('the upload URL is built on the configured public URL when there is one', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { publicUrl: 'https://cloud.example.com/' } });
      const { upload_to } = await startUpload(app);
      assert.match(upload_to, new RegExp(`^https://cloud\\.example\\.com${IMAGE_DATA_PATH}/[0-9a-f]{64}$`));
    });

    test('label and region are required; the region must exist', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const missing = await app.request('POST', '/v4/images/upload', { body: {} });
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body.errors.map((e: { field: string }) => e.field).sort(), ['label', 'region']);
      const unknown = await app.request('POST', '/v4/images/upload', { body: { label: 'x', region: 'mars-1' } });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.errors[0].field, 'region');
      const tooLong = await app.request('POST', '/v4/images/upload', {
        body: { label: 'x', region: 'us-east', description: 'd'.repeat(65001) },
      });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.errors[0].field, 'description');
    });

    test('a streamed gzip upload over HTTP lands in the blob store and the image becomes available', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const base = await listen(app);
      const { image, upload_to } = await startUpload(app);
      // 40 x 64 KB of noise: 2.5 MB uncompressed, which rounds up to 3 MB.
      const res = await fetchPut(`${base}${uploadPath(upload_to)}`, gzipStream(40));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, {});

      const files = blobFiles(app);
      assert.equal(files.length, 1);
      assert.match(files[0] as string, new RegExp(`^images/${me.accountId}/\\d+-[0-9a-f]+\\.img\\.gz$`));
      const key = files[0] as string;
      assert.equal(await app.runtime.ctx.blobs.exists(key), true);
      assert.ok(((await app.runtime.ctx.blobs.size(key)) ?? 0) > 40 * 64 * 1024);

      const processing = await app.request('GET', `/v4/images/${image.id}`);
      assert.equal(processing.body.status, 'pending_upload');
      const [scheduled] = await eventsOf(app, me.accountId, 'image_upload');
      assert.equal(scheduled?.status, 'scheduled');
      assert.equal(scheduled?.entity_type, 'image');
      assert.equal(scheduled?.entity_url, `/v4/images/${image.id}`);
      assert.equal(scheduled?.username, me.username);

      await settle(app);
      const done = await app.request('GET', `/v4/images/${image.id}`);
      assert.equal(done.body.status, 'available');
      assert.equal(done.body.size, 3);
      const [finished] = await eventsOf(app, me.accountId, 'image_upload');
      assert.equal(finished?.status, 'finished');
      assert.equal(finished?.percent_complete, 100);
    });

    test('the size is at least 1 MB, and the upload works through inject too', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { image, upload_to } = await startUpload(app);
      const res = await app.request('PUT', uploadPath(upload_to), { token: null, headers: OCTETS, body: smallGzip() });
      assert.equal(res.status, 200);
      await settle(app);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).body.size, 1);
    });

    test('a body larger than the JSON body limit streams through (8 MB, 1 MB JSON limit, 16 MB cap)', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { bodyLimitBytes: MIB, imageUploadMaxBytes: 16 * MIB } });
      const base = await listen(app);
      const { image, upload_to } = await startUpload(app);
      const res = await fetchPut(`${base}${uploadPath(upload_to)}`, gzipStream(128));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const [key] = blobFiles(app);
      assert.ok(((await app.runtime.ctx.blobs.size(key as string)) ?? 0) > 8 * MIB);
      await settle(app);
      const done = await app.request('GET', `/v4/images/${image.id}`);
      assert.equal(done.body.status, 'available');
      assert.equal(done.body.size, 8);
    });

    test('a body that is not gzip is a 400 and leaves no blob', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const base = await listen(app);
      const { image, upload_to } = await startUpload(app);
      const url = `${base}${uploadPath(upload_to)}`;
      const plain = await fetchPut(url, Readable.from([noise(200 * 1024)]));
      assert.equal(plain.status, 400);
      assert.match(plain.body.errors[0].reason, /gzip/);
      assert.deepEqual(await eventuallyNoBlobs(app), []);
      const empty = await rawPut(url, Buffer.alloc(0), OCTETS);
      assert.equal(empty.status, 400);
      assert.deepEqual(await eventuallyNoBlobs(app), []);
      // The gzip signature followed by garbage fails while decompressing.
      const garbage = await rawPut(url, Buffer.concat([Buffer.from([0x1f, 0x8b]), noise(4096)]), OCTETS);
      assert.equal(garbage.status, 400);
      assert.deepEqual(await eventuallyNoBlobs(app), []);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).body.status, 'pending_upload');
    });

    test('a truncated gzip is a 400 and leaves no blob; the URL still takes a good upload after', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const base = await listen(app);
      const { image, upload_to } = await startUpload(app);
      const url = `${base}${uploadPath(upload_to)}`;
      const whole = await new Promise<Buffer>((resolve) => {
        const parts: Buffer[] = [];
        gzipStream(4)
          .on('data', (c: Buffer) => parts.push(c))
          .on('end', () => resolve(Buffer.concat(parts)));
      });
      const cut = await fetchPut(url, Readable.from([whole.subarray(0, whole.length - 100)]));
      assert.equal(cut.status, 400);
      assert.match(cut.body.errors[0].reason, /decompress/);
      assert.deepEqual(await eventuallyNoBlobs(app), []);
      const good = await fetchPut(url, Readable.from([whole]));
      assert.equal(good.status, 200);
      assert.equal(blobFiles(app).length, 1);
      await settle(app);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).body.status, 'available');
    });

    test('past the size cap: 413 while streaming, and at once from Content-Length; no blob either way', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { imageUploadMaxBytes: 256 * 1024 } });
      const base = await listen(app);
      const { image, upload_to } = await startUpload(app);
      const url = `${base}${uploadPath(upload_to)}`;
      const streamed = await fetchPut(url, gzipStream(64));
      assert.equal(streamed.status, 413);
      assert.match(streamed.body.errors[0].reason, /256 KB/);
      assert.deepEqual(await eventuallyNoBlobs(app), []);
      const declared = await rawPut(url, gzipStream(64), { ...OCTETS, 'content-length': String(4 * MIB) });
      assert.equal(declared.status, 413);
      assert.deepEqual(await eventuallyNoBlobs(app), []);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).body.status, 'pending_upload');
    });

    test('data that unpacks past CUMULO_IMAGE_UNPACKED_MAX_BYTES is a 400 while it streams, keeps no blob and leaves the image unusable', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { imageUnpackedMaxBytes: 32 * MIB } });
      const base = await listen(app);
      const { image, upload_to } = await startUpload(app);
      const url = `${base}${uploadPath(upload_to)}`;
      // 200 MB of zeros, about 200 KB gzipped.
      const bomb = await fetchPut(url, Readable.from(zerosGzip(200)));
      assert.equal(bomb.status, 400);
      assert.deepEqual(Object.keys(bomb.body), ['errors']);
      assert.match(bomb.body.errors[0].reason, /too large once decompressed: it unpacks to more than the 32 MB allowed/);
      assert.deepEqual(await eventuallyNoBlobs(app), []);
      await settle(app);
      const view = await app.request('GET', `/v4/images/${image.id}`);
      assert.equal(view.body.status, 'pending_upload');
      assert.equal(view.body.size, 0);
      const deploy = await app.request('POST', '/v4/node/instances', {
        body: { type: 'g6-nanode-1', region: 'us-east', image: image.id, root_pass: 'correct-Horse-battery-9' },
      });
      assert.equal(deploy.status, 400, 'an image without its data is not deployed');
      // Within the ceiling, the same URL takes an upload.
      const good = await fetchPut(url, Readable.from(zerosGzip(16)));
      assert.equal(good.status, 200, JSON.stringify(good.body));
      await settle(app);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).body.size, 16);
    });

    test('a client that goes away mid-upload leaves no blob', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const base = await listen(app);
      const { image, upload_to } = await startUpload(app);
      const req = http.request(`${base}${uploadPath(upload_to)}`, { method: 'PUT', headers: OCTETS });
      req.on('error', () => {});
      const gzip = createGzip();
      gzip.pipe(req);
      for (let i = 1; i <= 16; i++) gzip.write(noise(64 * 1024, i));
      gzip.flush();
      // The data is on its way into a temporary file of the store while the request is still open.
      for (let i = 0; i < 100 && blobFiles(app).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(blobFiles(app).length, 1);
      assert.match(blobFiles(app)[0] as string, /^\.tmp\//);
      req.destroy();
      assert.deepEqual(await eventuallyNoBlobs(app), []);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).body.status, 'pending_upload');
    });

    test('a wrong token is a 404, a used one a 409; wrong media type 415; all in the envelope', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { upload_to } = await startUpload(app);
      const path = uploadPath(upload_to);
      const wrong = await app.request('PUT', `${IMAGE_DATA_PATH}/${'0'.repeat(64)}`, {
        token: null,
        headers: OCTETS,
        body: smallGzip(),
      });
      assert.equal(wrong.status, 404);
      assert.match(wrong.body.errors[0].reason, /upload/);
      const garbled = await app.request('PUT', `${IMAGE_DATA_PATH}/not-a-token`, {
        token: null,
        headers: OCTETS,
        body: smallGzip(),
      });
      assert.equal(garbled.status, 404);
      const json = await app.request('PUT', path, { token: null, body: { data: 'x' } });
      assert.equal(json.status, 415);
      assert.match(json.body.errors[0].reason, /application\/octet-stream/);
      const none = await app.request('PUT', path, { token: null });
      assert.equal(none.status, 415);

      const first = await app.request('PUT', path, { token: null, headers: OCTETS, body: smallGzip() });
      assert.equal(first.status, 200);
      const again = await app.request('PUT', path, { token: null, headers: OCTETS, body: smallGzip() });
      assert.equal(again.status, 409);
      assert.match(again.body.errors[0].reason, /once/);
      assert.equal(blobFiles(app).length, 1);
    });

    test('no data within 24 hours: the expiry job deletes the image and its upload; the URL stops working', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { timeScale: 1 } });
      const { ctx } = app.runtime;
      const { image, upload_to } = await startUpload(app);
      const kept = await startUpload(app);
      const keptPut = await app.request('PUT', uploadPath(kept.upload_to), { token: null, headers: OCTETS, body: smallGzip() });
      assert.equal(keptPut.status, 200);

      ctx.clock.advance(23 * 3600_000);
      await runDueJobs(app);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).status, 200);

      ctx.clock.advance(3600_000 + 1000);
      const late = await app.request('PUT', uploadPath(upload_to), { token: null, headers: OCTETS, body: smallGzip() });
      assert.equal(late.status, 404);
      assert.match(late.body.errors[0].reason, /expired/);
      assert.deepEqual(blobFiles(app).length, 1);

      await runDueJobs(app);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).status, 404);
      const uploads = await ctx.db.selectFrom('image_uploads').selectAll().execute();
      assert.deepEqual(uploads, []);
      const gone = await app.request('PUT', uploadPath(upload_to), { token: null, headers: OCTETS, body: smallGzip() });
      assert.equal(gone.status, 404);
      // The image whose data arrived stays.
      const survivor = await app.request('GET', `/v4/images/${kept.image.id}`);
      assert.equal(survivor.body.status, 'available');
    });

    test('CUMULO_TIME_SCALE scales the deadline: at 0.01 an upload with no data is gone after 14.4 minutes', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { timeScale: 0.01 }, clock: manualClock() });
      const { ctx } = app.runtime;
      const startedMs = ctx.clock.nowMs();
      const { image, upload_to } = await startUpload(app);
      const stored = await ctx.db.selectFrom('image_uploads').selectAll().executeTakeFirstOrThrow();
      assert.equal(stored.expires_at - startedMs, 864_000, '24 hours x 0.01');

      ctx.clock.advance(14 * 60_000);
      await runDueJobs(app);
      assert.equal(
        (await app.request('GET', `/v4/images/${image.id}`)).body.status,
        'pending_upload',
        'still waiting at 14 minutes',
      );

      ctx.clock.advance(30_000);
      const late = await app.request('PUT', uploadPath(upload_to), { token: null, headers: OCTETS, body: smallGzip() });
      assert.equal(late.status, 404);
      assert.match(late.body.errors[0].reason, /expired/);
      await runDueJobs(app);
      assert.equal((await app.request('GET', `/v4/images/${image.id}`)).status, 404, 'gone at 14.5 minutes');
      assert.deepEqual(await ctx.db.selectFrom('image_uploads').selectAll().execute(), []);
    });

    test('deleting a pending image cancels its upload URL', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { image, upload_to } = await startUpload(app);
      assert.equal((await app.request('DELETE', `/v4/images/${image.id}`)).status, 200);
      const res = await app.request('PUT', uploadPath(upload_to), { token: null, headers: OCTETS, body: smallGzip() });
      assert.equal(res.status, 404);
      assert.deepEqual(blobFiles(app), []);
    });

    test('starting an upload needs images:read_write and, for restricted users, add_images', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const readOnly = await newAccount(app, { scopes: 'images:read_only' });
      const refused = await app.request('POST', '/v4/images/upload', {
        token: readOnly.token,
        body: { label: 'x', region: 'us-east' },
      });
      assert.equal(refused.status, 403);
      const other = await newAccount(app);
      const theirs = await startUpload(app, other.token);
      const mine = await app.request('GET', `/v4/images/${theirs.image.id}`);
      assert.equal(mine.status, 404);
    });
  });
}
