import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { createEmptyNode, getNode } from '../nodes/helpers.ts';

/**
 * `null` as clients send it for what they leave unset: on a create, not given; on an update, a
 * field that takes null is cleared and one that does not is left as it is; a required field stays
 * required.
 */

for (const dialect of DIALECTS) {
  describe(`null for a field [${dialect}]`, () => {
    test('on a create is "not given": defaults apply', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await app.request('POST', '/v4/node/instances', {
        body: { region: 'us-east', type: 'g6-nanode-1', label: null, tags: null, group: null, booted: null, image: null },
      });
      assert.equal(node.status, 200, JSON.stringify(node.body));
      assert.ok(node.body.label.length >= 3, 'a generated label');
      assert.deepEqual(node.body.tags, []);
      assert.equal(node.body.image, null);

      const tag = await app.request('POST', '/v4/tags', {
        body: { label: 'null-kinds', nodes: [node.body.id], domains: null },
      });
      assert.equal(tag.status, 200, JSON.stringify(tag.body));
      assert.deepEqual((await getNode(app, node.body.id)).tags, ['null-kinds']);
      assert.equal(tag.headers.warning, undefined, 'a null is not an unknown field');
    });

    test('for a required field is a 400 naming it, and nothing is made', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const before = (await app.request('GET', '/v4/node/instances')).body.results;
      const res = await app.request('POST', '/v4/node/instances', { body: { region: null, type: 'g6-nanode-1' } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(
        res.body.errors.map((e: { field: string }) => e.field),
        ['region'],
      );
      const tag = await app.request('POST', '/v4/tags', { body: { label: null } });
      assert.equal(tag.status, 400);
      assert.equal(tag.body.errors[0].field, 'label');
      assert.equal((await app.request('GET', '/v4/node/instances')).body.results, before);
    });

    test('on an update clears a field that takes null and leaves one that does not', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const named = await app.request('PUT', `/v4/node/instances/${node.id}`, { body: { label: 'kept-label', group: 'g1' } });
      assert.equal(named.status, 200, JSON.stringify(named.body));
      const res = await app.request('PUT', `/v4/node/instances/${node.id}`, {
        body: { label: null, group: null, watchdog_enabled: null, alerts: { cpu: null, io: 5000 } },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.label, 'kept-label', 'label does not take null: unchanged');
      assert.equal(res.body.group, 'g1', 'group does not take null: unchanged');
      assert.equal(res.body.watchdog_enabled, true);
      assert.equal(res.body.alerts.cpu, named.body.alerts.cpu);
      assert.equal(res.body.alerts.io, 5000);

      const configs = await app.request('POST', `/v4/node/instances/${node.id}/configs`, {
        body: { label: 'with-comments', comments: 'a note', devices: {} },
      });
      assert.equal(configs.status, 200, JSON.stringify(configs.body));
      const url = `/v4/node/instances/${node.id}/configs/${configs.body.id}`;
      const cleared = await app.request('PUT', url, { body: { comments: null, memory_limit: null, label: null } });
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      assert.equal(cleared.body.comments, '', 'comments takes null: cleared (read as "", as the live service shows none)');
      assert.equal(cleared.body.label, 'with-comments');
      assert.equal(cleared.body.memory_limit, configs.body.memory_limit);
    });
  });
}
