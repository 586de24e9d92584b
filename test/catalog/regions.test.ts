import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

for (const dialect of DIALECTS) {
  describe(`regions [${dialect}]`, () => {
    test('a region as clients read it: label, site type, and no placement groups or monitors offered', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/regions/us-east', { token: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        id: 'us-east',
        label: 'Newark, NJ',
        country: 'us',
        capabilities: res.body.capabilities,
        status: 'ok',
        resolvers: res.body.resolvers,
        site_type: 'core',
        placement_group_limits: { maximum_pgs_per_customer: 0, maximum_nodes_per_pg: 0, maximum_nodes_per_flexible_pg: 0 },
        monitors: { alerts: [], metrics: [] },
      });
      const list = await app.request('GET', '/v4/regions', { token: null });
      assert.deepEqual(
        list.body.data.find((r: { id: string }) => r.id === 'us-east'),
        res.body,
      );
      const core = await app.request('GET', '/v4/regions', { headers: { 'x-filter': '{"site_type":"core"}' } });
      assert.equal(core.body.results, list.body.results);
      const none = await app.request('GET', '/v4/regions', { headers: { 'x-filter': '{"site_type":"distributed"}' } });
      assert.equal(none.body.results, 0);
    });
  });
}
