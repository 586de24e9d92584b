import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { insertPrivateImage } from '../catalog/helpers.ts';
import { admin, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { eventsOf, grant, nodeWithDisk, setGlobalGrants } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`image tags [${dialect}]`, () => {
    test('an update sets the tags, the image and the list show them sorted, the account gains them', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const image = await insertPrivateImage(app, me.accountId, { label: 'tagged' });
      const res = await app.request('PUT', `/v4/images/${image.id}`, { body: { tags: ['web', 'base', 'web'] } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.tags, ['base', 'web']);
      assert.deepEqual((await app.request('GET', `/v4/images/${image.id}`)).body.tags, ['base', 'web']);
      const list = await app.request('GET', '/v4/images?page_size=100');
      const listed = list.body.data.find((i: { id: string }) => i.id === image.id);
      assert.deepEqual(listed.tags, ['base', 'web']);
      assert.ok(
        list.body.data.filter((i: { is_public: boolean }) => i.is_public).every((i: { tags: string[] }) => i.tags.length === 0),
      );
      const tags = (await app.request('GET', '/v4/tags')).body.data.map((x: { label: string }) => x.label);
      assert.deepEqual(tags, ['base', 'web']);
      assert.equal((await eventsOf(app, me.accountId, 'image_update')).length, 1);

      // The same tags again change nothing and record nothing.
      await app.request('PUT', `/v4/images/${image.id}`, { body: { tags: ['web', 'base'] } });
      assert.equal((await eventsOf(app, me.accountId, 'image_update')).length, 1);
      const cleared = await app.request('PUT', `/v4/images/${image.id}`, { body: { tags: [] } });
      assert.deepEqual(cleared.body.tags, []);
    });

    test('a tag deleted comes off the image; an image deleted leaves its tags behind on nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const first = await insertPrivateImage(app, me.accountId);
      const second = await insertPrivateImage(app, me.accountId);
      await app.request('PUT', `/v4/images/${first.id}`, { body: { tags: ['gone', 'kept'] } });
      await app.request('PUT', `/v4/images/${second.id}`, { body: { tags: ['kept'] } });
      assert.equal((await app.request('DELETE', '/v4/tags/gone')).status, 200);
      assert.deepEqual((await app.request('GET', `/v4/images/${first.id}`)).body.tags, ['kept']);
      assert.equal((await app.request('DELETE', `/v4/images/${second.id}`)).status, 200);
      const rows = await app.runtime.ctx.db
        .selectFrom('entity_tags')
        .select('entity_id')
        .where('entity_type', '=', 'image')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.entity_id),
        [first.num],
      );
    });

    test('a capture and an upload take tags; a restricted user may not add them, and nothing is made', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const { node, disk } = await nodeWithDisk(app);
      const captured = await app.request('POST', '/v4/images', {
        body: { disk_id: disk.id, tags: ['golden', 'base', 'golden'] },
      });
      assert.equal(captured.status, 200, JSON.stringify(captured.body));
      assert.deepEqual(captured.body.tags, ['base', 'golden']);
      assert.deepEqual((await app.request('GET', `/v4/images/${captured.body.id}`)).body.tags, ['base', 'golden']);
      const uploaded = await app.request('POST', '/v4/images/upload', {
        body: { label: 'with-tags', region: 'us-east', tags: ['uploaded'] },
      });
      assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
      assert.deepEqual(uploaded.body.image.tags, ['uploaded']);
      assert.deepEqual((await app.request('GET', `/v4/images/${uploaded.body.image.id}`)).body.tags, ['uploaded']);
      const tags = (await app.request('GET', '/v4/tags')).body.data.map((x: { label: string }) => x.label);
      assert.deepEqual(tags, ['base', 'golden', 'uploaded']);

      const restricted = await newUser(app, me.accountId, { restricted: true });
      await setGlobalGrants(app, restricted, { add_images: true });
      await grant(app, restricted, 'node', node.id, 'read_only');
      const before = (await app.request('GET', '/v4/images?page_size=500')).body.results;
      for (const [url, body] of [
        ['/v4/images', { disk_id: disk.id, tags: ['mine'] }],
        ['/v4/images/upload', { label: 'mine', region: 'us-east', tags: ['mine'] }],
      ] as const) {
        const refused = await app.request('POST', url, { token: restricted.token, body });
        assert.equal(refused.status, 403, `${url}: ${JSON.stringify(refused.body)}`);
      }
      assert.equal((await app.request('GET', '/v4/images?page_size=500')).body.results, before);
      const bad = await app.request('POST', '/v4/images/upload', { body: { label: 'x', region: 'us-east', tags: ['ab'] } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.errors[0].field, /^tags/);
    });

    test('tags are 3..50 characters; restricted users may not change them, even with read_write', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const image = await insertPrivateImage(app, me.accountId);
      const short = await app.request('PUT', `/v4/images/${image.id}`, { body: { tags: ['ab'] } });
      assert.equal(short.status, 400);
      assert.match(short.body.errors[0].field, /^tags/);
      const restricted = await newUser(app, me.accountId, { restricted: true });
      await grant(app, restricted, 'image', image.num, 'read_write');
      const as = { token: restricted.token };
      const refused = await app.request('PUT', `/v4/images/${image.id}`, { ...as, body: { tags: ['mine'] } });
      assert.equal(refused.status, 403);
      const label = await app.request('PUT', `/v4/images/${image.id}`, { ...as, body: { label: 'renamed', tags: [] } });
      assert.equal(label.status, 200, 'sending the tags unchanged is no change');
      assert.equal(label.body.label, 'renamed');
    });
  });
}
