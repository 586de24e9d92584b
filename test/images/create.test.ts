import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { eventsOf, grant, nodeWithDisk, setGlobalGrants, settle } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`image create from a disk [${dialect}]`, () => {
    test('creating, then available through the image_create operation; size, creator, vendor, region from the disk', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const { node, disk } = await nodeWithDisk(app, { region: 'eu-central' });

      const res = await app.request('POST', '/v4/images', { body: { disk_id: disk.id, description: 'golden master' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const image = res.body;
      assert.match(image.id, /^private\/\d+$/);
      assert.equal(image.status, 'creating');
      assert.equal(image.label, disk.label);
      assert.equal(image.description, 'golden master');
      assert.equal(image.size, disk.size);
      assert.equal(image.created_by, me.username);
      assert.equal(image.type, 'manual');
      assert.equal(image.vendor, 'Debian');
      assert.equal(image.is_public, false);
      assert.equal(image.deprecated, false);
      assert.equal(image.expiry, null);
      assert.equal(image.eol, null);
      // Later revisions' fields: its one region, where it is being made; no tags.
      assert.deepEqual(image.regions, [{ region: 'eu-central', status: 'creating' }]);
      assert.equal(image.total_size, disk.size);
      assert.deepEqual(image.tags, []);
      const row = await app.runtime.ctx.db.selectFrom('images').selectAll().where('id', '=', image.id).executeTakeFirstOrThrow();
      assert.equal(row.region, 'eu-central');
      assert.equal(row.account_id, me.accountId);

      const [scheduled] = await eventsOf(app, me.accountId, 'disk_imagize');
      assert.equal(scheduled?.status, 'scheduled');
      // As the live service records it: the disk's node, and the image by its number.
      assert.equal(scheduled?.entity_type, 'node');
      assert.equal(scheduled?.entity_id, node.id);
      assert.equal(scheduled?.entity_url, `/v4/node/instances/${node.id}`);
      assert.deepEqual(JSON.parse(scheduled?.secondary_entity ?? 'null'), {
        id: Number(image.id.slice('private/'.length)),
        type: 'image',
        label: image.label,
        url: `/v4/images/${image.id}`,
      });

      await settle(app);
      const done = await app.request('GET', `/v4/images/${image.id}`);
      assert.equal(done.body.status, 'available');
      assert.deepEqual(done.body.regions, [{ region: 'eu-central', status: 'available' }]);
      const [finished] = await eventsOf(app, me.accountId, 'disk_imagize');
      assert.equal(finished?.status, 'finished');
      const events = await app.request('GET', '/v4/account/events', {
        headers: { 'x-filter': JSON.stringify({ action: 'disk_imagize' }) },
      });
      assert.equal(events.body.data[0].secondary_entity.url, `/v4/images/${image.id}`);
    });

    test('a given label wins over the disk label; description is 1..65000 characters', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { disk } = await nodeWithDisk(app);
      const named = await app.request('POST', '/v4/images', { body: { disk_id: disk.id, label: 'web-golden' } });
      assert.equal(named.status, 200);
      assert.equal(named.body.label, 'web-golden');
      assert.equal(named.body.description, '', 'none reads as "", as the live service shows it');
      for (const description of ['', 'd'.repeat(65001)]) {
        const res = await app.request('POST', '/v4/images', { body: { disk_id: disk.id, description } });
        assert.equal(res.status, 400);
        assert.equal(res.body.errors[0].field, 'description');
      }
      const missing = await app.request('POST', '/v4/images', { body: {} });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.errors[0].field, 'disk_id');
    });

    test("an unknown disk, another account's disk or a disk that is not ready is a 400 on disk_id", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const other = await newAccount(app);
      const theirs = await nodeWithDisk(app, {}, other.token);
      const mine = await nodeWithDisk(app);
      await app.runtime.ctx.db.updateTable('disks').set({ status: 'deleting' }).where('id', '=', mine.disk.id).execute();
      for (const diskId of [999999, theirs.disk.id, mine.disk.id]) {
        const res = await app.request('POST', '/v4/images', { body: { disk_id: diskId } });
        assert.equal(res.status, 400, String(diskId));
        assert.equal(res.body.errors[0].field, 'disk_id');
      }
      const images = await app.runtime.ctx.db.selectFrom('images').select('id').where('account_id', 'is not', null).execute();
      assert.deepEqual(images, []);
    });

    test('the private source image of a disk gives its vendor', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { disk } = await nodeWithDisk(app, { image: 'node/ubuntu24.04' });
      const first = await app.request('POST', '/v4/images', { body: { disk_id: disk.id } });
      assert.equal(first.body.vendor, 'Ubuntu');
      await settle(app);
      const second = await nodeWithDisk(app, { image: first.body.id });
      const copy = await app.request('POST', '/v4/images', { body: { disk_id: second.disk.id } });
      assert.equal(copy.status, 200, JSON.stringify(copy.body));
      assert.equal(copy.body.vendor, 'Ubuntu');
    });

    test('needs images:read_write and nodes:read_only', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const { disk } = await nodeWithDisk(app);
      const me = await admin(app);
      for (const scopes of ['images:read_write', 'nodes:read_only images:read_only']) {
        const caller = await newUser(app, me.accountId, { scopes });
        const res = await app.request('POST', '/v4/images', { token: caller.token, body: { disk_id: disk.id } });
        assert.equal(res.status, 403, scopes);
      }
      const enough = await newUser(app, me.accountId, { scopes: 'images:read_write nodes:read_only' });
      const res = await app.request('POST', '/v4/images', { token: enough.token, body: { disk_id: disk.id } });
      assert.equal(res.status, 200);
    });

    test('a restricted user needs add_images and a grant on the node; it gets read_write on the image', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const { node, disk } = await nodeWithDisk(app);
      const restricted = await newUser(app, me.accountId, { restricted: true });
      const body = { disk_id: disk.id };

      const noGrant = await app.request('POST', '/v4/images', { token: restricted.token, body });
      assert.equal(noGrant.status, 403);
      await setGlobalGrants(app, restricted, { add_images: true });
      const noNode = await app.request('POST', '/v4/images', { token: restricted.token, body });
      assert.equal(noNode.status, 400);
      assert.equal(noNode.body.errors[0].field, 'disk_id');

      await grant(app, restricted, 'node', node.id, 'read_only');
      const made = await app.request('POST', '/v4/images', { token: restricted.token, body });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      assert.equal(made.body.created_by, restricted.username);
      const seen = await app.request('GET', `/v4/images/${made.body.id}`, { token: restricted.token });
      assert.equal(seen.status, 200);
      const renamed = await app.request('PUT', `/v4/images/${made.body.id}`, {
        token: restricted.token,
        body: { label: 'mine now' },
      });
      assert.equal(renamed.status, 200);
    });
  });
}
