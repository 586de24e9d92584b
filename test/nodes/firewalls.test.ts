import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createFirewall } from '../firewalls/helpers.ts';
import { admin, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { createEmptyNode } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`a node's firewalls [${dialect}]`, () => {
    test('the firewalls really assigned to the node; a bad X-Filter is a 400 as on every list', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const otherNode = await createEmptyNode(app);
      const url = `/v4/node/instances/${node.id}/firewalls`;
      assert.deepEqual((await app.request('GET', url)).body, { data: [], page: 1, pages: 1, results: 0 });

      const web = await createFirewall(app, { label: 'web', tags: ['front'], devices: { nodes: [node.id] } });
      const spare = await createFirewall(app, { label: 'spare', devices: { nodes: [otherNode.id] } });
      const list = await app.request('GET', url);
      assert.deepEqual(list.body, { data: [web], page: 1, pages: 1, results: 1 });
      const filtered = async (filter: unknown) =>
        (await app.request('GET', url, { headers: { 'x-filter': JSON.stringify(filter) } })).body;
      assert.equal((await filtered({ label: 'web' })).results, 1);
      assert.equal((await filtered({ label: 'spare' })).results, 0, "another node's firewall is not listed");
      assert.equal((await filtered({ tags: 'front' })).results, 1);
      assert.equal((await filtered({ id: spare.id })).results, 0);
      assert.equal((await app.request('GET', `${url}?page_size=24`)).status, 400);

      for (const filter of ['not json', '{"label":', '{"no_such_field":1}', '{"label":{"+gt":{}}}', '{"entities":1}']) {
        const res = await app.request('GET', url, { headers: { 'x-filter': filter } });
        assert.equal(res.status, 400, filter);
        assert.equal(res.body.errors[0].field, 'X-Filter', filter);
      }

      // A restricted user with a grant on the node sees only the firewalls it holds a grant on.
      const user = await newUser(app, (await admin(app)).accountId, { restricted: true });
      await app.request('PUT', `/v4/account/users/${user.username}/grants`, {
        body: { node: [{ id: node.id, permissions: 'read_only' }] },
      });
      const restricted = await app.request('GET', url, { token: user.token });
      assert.equal(restricted.status, 200);
      assert.equal(restricted.body.results, 0);

      assert.equal((await app.request('DELETE', `/v4/networking/firewalls/${web.id}`)).status, 200);
      assert.equal((await app.request('GET', url)).body.results, 0, 'a deleted firewall leaves the node');
    });
  });
}
