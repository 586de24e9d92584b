import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { createDomain, createEmptyNode, kindsAndIds, makeTag, newAccount, taggedObjects, tagLabels, tagsOn } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`tags [${dialect}]`, () => {
    test('POST /tags tags nodes and domains; GET /tags/{label} lists both whole; GET /tags lists implicit tags too', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app, { tags: ['from-node'] });
      const domain = await createDomain(app, { tags: ['from-domain'] });

      await makeTag(app, { label: 'web servers', nodes: [node.id], domains: [domain.id] });
      assert.deepEqual(await tagLabels(app), ['from-domain', 'from-node', 'web servers']);
      assert.deepEqual(await tagsOn(app, `/v4/node/instances/${node.id}`), ['from-node', 'web servers']);
      assert.deepEqual(await tagsOn(app, `/v4/domains/${domain.id}`), ['from-domain', 'web servers']);

      const listed = await taggedObjects(app, 'web servers');
      assert.deepEqual(kindsAndIds(listed), [`domain:${domain.id}`, `node:${node.id}`]);
      assert.equal(listed.body.results, 2);
      assert.deepEqual(listed.body.data[0].data, (await app.request('GET', `/v4/domains/${domain.id}`)).body, 'the whole domain');
      assert.deepEqual(
        listed.body.data[1].data,
        (await app.request('GET', `/v4/node/instances/${node.id}`)).body,
        'the whole node',
      );

      // Making a tag that exists keeps it and what it tags, and tags more.
      const other = await createEmptyNode(app);
      await makeTag(app, { label: 'web servers', nodes: [other.id, node.id] });
      assert.deepEqual(kindsAndIds(await taggedObjects(app, 'web servers')), [
        `domain:${domain.id}`,
        `node:${node.id}`,
        `node:${other.id}`,
      ]);
      await makeTag(app, { label: 'nothing yet' });
      assert.deepEqual(kindsAndIds(await taggedObjects(app, 'nothing yet')), []);
      assert.equal((await taggedObjects(app, 'no such tag')).status, 404);
    });

    test('tags and tagged objects come in pages of 25 to 100', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const domains = [];
      for (let i = 0; i < 26; i++) domains.push(await createDomain(app));
      await makeTag(app, { label: 'many', domains: domains.map((d) => d.id).reverse() });
      for (let i = 0; i < 25; i++) await makeTag(app, { label: `tag-${String(i).padStart(2, '0')}` });

      const first = await app.request('GET', '/v4/tags?page_size=25');
      assert.equal(first.status, 200);
      assert.deepEqual([first.body.page, first.body.pages, first.body.results, first.body.data.length], [1, 2, 26, 25]);
      const second = await app.request('GET', '/v4/tags?page_size=25&page=2');
      assert.deepEqual(
        second.body.data.map((d: { label: string }) => d.label),
        ['tag-24'],
      );
      const objects = await taggedObjects(app, 'many', undefined, '?page_size=25&page=2');
      assert.deepEqual([objects.body.page, objects.body.pages, objects.body.results], [2, 2, 26]);
      assert.deepEqual(kindsAndIds(objects), [`domain:${domains[25].id}`], 'by id');
      for (const size of [24, 501]) {
        const refused = await app.request('GET', `/v4/tags?page_size=${size}`);
        assert.equal(refused.status, 400, `page_size ${size}`);
        assert.equal((await taggedObjects(app, 'many', undefined, `?page_size=${size}`)).status, 400);
      }
    });

    test('a label of 3 to 50; ids that are not the caller’s are a 400 naming them, and nothing is made or tagged', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const domain = await createDomain(app);
      const stranger = await newAccount(app);
      const theirNode = await createEmptyNode(app, {}, stranger.token);
      const theirDomain = await createDomain(app, {}, stranger.token);
      const refusals: [Record<string, unknown>, string][] = [
        [{ label: 'ab' }, 'label'],
        [{ label: 'x'.repeat(51) }, 'label'],
        [{ nodes: [node.id] }, 'label'],
        [{ label: 'refused', nodes: [node.id, 999_999] }, 'nodes[1]'],
        [{ label: 'refused', nodes: [theirNode.id] }, 'nodes[0]'],
        [{ label: 'refused', nodes: [node.id], domains: [domain.id, theirDomain.id] }, 'domains[1]'],
        [{ label: 'refused', nodes: [node.id], volumes: [7] }, 'volumes[0]'],
        [{ label: 'refused', domains: [domain.id], nodebalancers: [7] }, 'nodebalancers[0]'],
      ];
      for (const [body, field] of refusals) {
        const res = await app.request('POST', '/v4/tags', { body });
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      assert.deepEqual(await tagLabels(app), [], 'no tag was made');
      assert.deepEqual(await tagsOn(app, `/v4/node/instances/${node.id}`), []);
      assert.deepEqual(await tagsOn(app, `/v4/domains/${domain.id}`), []);
      assert.deepEqual(await tagLabels(app, stranger.token), []);
      assert.deepEqual(await tagsOn(app, `/v4/node/instances/${theirNode.id}`).catch(() => 'not mine'), 'not mine');

      await makeTag(app, { label: 'a'.repeat(50), nodes: [node.id], volumes: [], nodebalancers: [] });
      assert.deepEqual(await tagLabels(app), ['a'.repeat(50)]);
    });

    test('DELETE /tags/{label} takes the tag off every object and deletes it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app, { tags: ['gone', 'kept'] });
      const domain = await createDomain(app, { tags: ['gone'] });
      const firewall = await app.request('POST', '/v4/networking/firewalls', {
        body: { label: 'fw-tags', rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT' }, tags: ['gone'] },
      });
      assert.equal(firewall.status, 200, JSON.stringify(firewall.body));
      const stranger = await newAccount(app);
      const theirs = await createEmptyNode(app, { tags: ['gone'] }, stranger.token);

      const res = await app.request('DELETE', '/v4/tags/gone');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, {});
      assert.deepEqual(await tagsOn(app, `/v4/node/instances/${node.id}`), ['kept']);
      assert.deepEqual(await tagsOn(app, `/v4/domains/${domain.id}`), []);
      assert.deepEqual(await tagsOn(app, `/v4/networking/firewalls/${firewall.body.id}`), []);
      assert.deepEqual(await tagLabels(app), ['kept']);
      assert.equal((await taggedObjects(app, 'gone')).status, 404);
      assert.equal((await app.request('DELETE', '/v4/tags/gone')).status, 404);

      const stillTheirs = await app.request('GET', `/v4/node/instances/${theirs.id}`, { token: stranger.token });
      assert.deepEqual(stillTheirs.body.tags, ['gone'], "another account's tag of the same label stays");
      assert.deepEqual(await tagLabels(app, stranger.token), ['gone']);
    });

    test('a label with spaces and a slash, URL-encoded in the path', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      await makeTag(app, { label: 'eu/west 1', nodes: [node.id] });
      assert.deepEqual(kindsAndIds(await taggedObjects(app, 'eu/west 1')), [`node:${node.id}`]);
      assert.equal((await app.request('DELETE', `/v4/tags/${encodeURIComponent('eu/west 1')}`)).status, 200);
      assert.deepEqual(await tagsOn(app, `/v4/node/instances/${node.id}`), []);
    });
  });
}
