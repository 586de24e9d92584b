import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { insertPrivateImage } from '../catalog/helpers.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { blobFiles, eventsOf, grant, nodeWithDisk, settle, smallGzip, uploadPath } from './helpers.ts';

/** A private image with data in the blob store, made through upload. */
async function uploadedImage(app: TestApp): Promise<string> {
  const start = await app.request('POST', '/v4/images/upload', { body: { label: 'uploaded', region: 'us-east' } });
  const put = await app.request('PUT', uploadPath(start.body.upload_to), {
    token: null,
    headers: { 'content-type': 'application/octet-stream' },
    body: smallGzip(),
  });
  assert.equal(put.status, 200);
  await settle(app);
  return start.body.image.id;
}

for (const dialect of DIALECTS) {
  describe(`image update and delete [${dialect}]`, () => {
    test('update changes label and description, records image_update, and leaves the rest', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const image = await insertPrivateImage(app, me.accountId, { label: 'before', description: 'old' });
      const res = await app.request('PUT', `/v4/images/${image.id}`, { body: { label: 'after', description: 'new words' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.label, 'after');
      assert.equal(res.body.description, 'new words');
      assert.equal(res.body.size, 2048);
      assert.equal(res.body.status, 'available');
      assert.notEqual(res.body.updated, '2025-01-02T03:04:05');
      const view = await app.request('GET', `/v4/images/${image.id}`);
      assert.deepEqual(view.body, res.body);
      const [event] = await eventsOf(app, me.accountId, 'image_update');
      assert.equal(event?.entity_type, 'image');
      assert.equal(event?.entity_id, image.num);
      assert.equal(event?.entity_label, 'after');
      assert.equal(event?.status, 'notification');

      const cleared = await app.request('PUT', `/v4/images/${image.id}`, { body: { description: null } });
      assert.equal(cleared.body.description, '', 'cleared reads as ""');
      assert.equal(cleared.body.label, 'after');
      // The whole object sent back, read-only fields included, is accepted; they do not change.
      const echoed = await app.request('PUT', `/v4/images/${image.id}`, {
        body: { ...cleared.body, size: 1, type: 'automatic', is_public: true },
      });
      assert.equal(echoed.status, 200);
      assert.equal(echoed.body.size, 2048);
      assert.equal(echoed.body.type, 'manual');
      assert.equal(echoed.body.is_public, false);
    });

    test('description must be 1..65000 characters, or none (null, or the "" an image without one shows); status cannot be changed', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const image = await insertPrivateImage(app, (await admin(app)).accountId, { description: 'old' });
      const res = await app.request('PUT', `/v4/images/${image.id}`, { body: { description: 'd'.repeat(65001) } });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].field, 'description');
      const none = await app.request('PUT', `/v4/images/${image.id}`, { body: { description: '' } });
      assert.equal(none.status, 200, JSON.stringify(none.body));
      assert.equal(none.body.description, '');
      const status = await app.request('PUT', `/v4/images/${image.id}`, { body: { status: 'creating' } });
      assert.equal(status.status, 400);
      assert.equal(status.body.errors[0].field, 'status');
      const same = await app.request('PUT', `/v4/images/${image.id}`, { body: { status: 'available', label: 'ok' } });
      assert.equal(same.status, 200);
      const bogus = await app.request('PUT', `/v4/images/${image.id}`, { body: { status: 'deleted' } });
      assert.equal(bogus.status, 400);
    });

    test("public images are refused (403); another account's image is not found (404)", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const other = await newAccount(app);
      const theirs = await insertPrivateImage(app, other.accountId);
      for (const [method, body] of [
        ['PUT', { label: 'mine' }],
        ['DELETE', undefined],
      ] as const) {
        const pub = await app.request(method, '/v4/images/node/debian12', { body });
        assert.equal(pub.status, 403, method);
        // Starting as the live service's refusal does, which an SDK's own test looks for.
        assert.match(pub.body.errors[0].reason, /^Unauthorized: public images/);
        const foreign = await app.request(method, `/v4/images/${theirs.id}`, { body });
        assert.equal(foreign.status, 404, method);
        const missing = await app.request(method, '/v4/images/private/999999', { body });
        assert.equal(missing.status, 404, method);
      }
      const untouched = await app.request('GET', `/v4/images/${theirs.id}`, { token: other.token });
      assert.equal(untouched.status, 200);
      assert.notEqual(untouched.body.label, 'mine');
    });

    test('restricted users change only images they hold read_write on', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const readable = await insertPrivateImage(app, me.accountId);
      const writable = await insertPrivateImage(app, me.accountId);
      const hidden = await insertPrivateImage(app, me.accountId);
      const restricted = await newUser(app, me.accountId, { restricted: true });
      await grant(app, restricted, 'image', readable.num, 'read_only');
      await grant(app, restricted, 'image', writable.num, 'read_write');
      const as = { token: restricted.token };

      const ro = await app.request('PUT', `/v4/images/${readable.id}`, { ...as, body: { label: 'x' } });
      assert.equal(ro.status, 403);
      assert.equal((await app.request('DELETE', `/v4/images/${readable.id}`, as)).status, 403);
      assert.equal((await app.request('PUT', `/v4/images/${hidden.id}`, { ...as, body: { label: 'x' } })).status, 404);
      assert.equal((await app.request('DELETE', `/v4/images/${hidden.id}`, as)).status, 404);
      const rw = await app.request('PUT', `/v4/images/${writable.id}`, { ...as, body: { label: 'x' } });
      assert.equal(rw.status, 200);
      assert.equal((await app.request('DELETE', `/v4/images/${writable.id}`, as)).status, 200);
      const grants = await app.runtime.ctx.db
        .selectFrom('entity_grants')
        .select('entity_id')
        .where('user_id', '=', restricted.userId)
        .execute();
      assert.deepEqual(
        grants.map((g) => g.entity_id),
        [readable.num],
      );
    });

    test('delete removes the image, its data in the blob store, and records image_delete', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const id = await uploadedImage(app);
      assert.equal(blobFiles(app).length, 1);
      const res = await app.request('DELETE', `/v4/images/${id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {});
      assert.equal((await app.request('GET', `/v4/images/${id}`)).status, 404);
      assert.deepEqual(blobFiles(app), []);
      const [event] = await eventsOf(app, me.accountId, 'image_delete');
      assert.equal(event?.entity_url, `/v4/images/${id}`);
      assert.equal(event?.entity_label, 'uploaded');
      assert.equal((await app.request('DELETE', `/v4/images/${id}`)).status, 404);
    });

    test('an image deleted while it is being created stays deleted', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { disk } = await nodeWithDisk(app);
      const made = await app.request('POST', '/v4/images', { body: { disk_id: disk.id } });
      assert.equal(made.body.status, 'creating');
      assert.equal((await app.request('DELETE', `/v4/images/${made.body.id}`)).status, 200);
      await settle(app);
      assert.equal((await app.request('GET', `/v4/images/${made.body.id}`)).status, 404);
    });

    test('writes need images:read_write', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const image = await insertPrivateImage(app, me.accountId);
      const readOnly = await newUser(app, me.accountId, { scopes: 'images:read_only' });
      const put = await app.request('PUT', `/v4/images/${image.id}`, { token: readOnly.token, body: { label: 'x' } });
      assert.equal(put.status, 403);
      assert.equal((await app.request('DELETE', `/v4/images/${image.id}`, { token: readOnly.token })).status, 403);
    });
  });
}
