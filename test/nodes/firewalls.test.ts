import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { createEmptyNode } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`a node's firewalls [${dialect}]`, () => {
    test('an empty page until firewalls exist; a bad X-Filter is a 400 as on every list', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const url = `/v4/node/instances/${node.id}/firewalls`;
      const empty = await app.request('GET', url, { headers: { 'x-filter': '{"label":"web"}' } });
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.body, { data: [], page: 1, pages: 1, results: 0 });
      for (const filter of ['not json', '{"label":', '{"no_such_field":1}', '{"label":{"+gt":{}}}']) {
        const res = await app.request('GET', url, { headers: { 'x-filter': filter } });
        assert.equal(res.status, 400, filter);
        assert.equal(res.body.errors[0].field, 'X-Filter', filter);
      }
    });
  });
}
