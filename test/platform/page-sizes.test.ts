import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { createNode } from '../nodes/helpers.ts';

/** The collections whose pages the service description bounds to 25..100. */
const LIMITED = ['/networking/firewalls', '/networking/ipv6/pools', '/networking/ipv6/ranges', '/networking/vlans', '/tags'];
/** Collections the description sets no bounds for: up to 500 a page, as the live service takes. */
const UNLIMITED = [
  '/regions',
  '/node/instances',
  '/node/types',
  '/node/kernels',
  '/node/stackscripts',
  '/images',
  '/domains',
  '/account/events',
  '/account/users',
  '/networking/ips',
  '/profile/tokens',
  '/managed/contacts',
];

for (const dialect of DIALECTS) {
  describe(`page sizes [${dialect}]`, () => {
    test('pages of at most 100 where the description bounds them (a larger size is served 100), 25..500 elsewhere', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createNode(app);
      const firewall = await app.request('POST', '/v4/networking/firewalls', {
        body: { label: 'pages', rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' } },
      });
      assert.equal((await app.request('POST', '/v4/tags', { body: { label: 'some-tag' } })).status, 200);
      const limited = [
        ...LIMITED,
        `/networking/firewalls/${firewall.body.id}/devices`,
        `/node/instances/${node.id}/firewalls`,
        '/tags/some-tag',
      ];
      for (const path of limited) {
        assert.equal((await app.request('GET', `/v4${path}?page_size=100`)).status, 200, path);
        // Clients ask every collection for 500 a page (the vendor's console always does) and follow `pages`.
        assert.equal((await app.request('GET', `/v4${path}?page_size=500`)).status, 200, path);
        const over = await app.request('GET', `/v4${path}?page_size=501`);
        assert.deepEqual([over.status, over.body.errors?.[0]?.field], [400, 'page_size'], path);
        const under = await app.request('GET', `/v4${path}?page_size=24`);
        assert.equal(under.status, 400, path);
      }
      for (let i = 0; i < 120; i += 1) {
        assert.equal((await app.request('POST', '/v4/tags', { body: { label: `tag-${i}` } })).status, 200);
      }
      const first = await app.request('GET', '/v4/tags?page_size=500');
      assert.deepEqual([first.body.data.length, first.body.page, first.body.pages, first.body.results], [100, 1, 2, 121]);
      const second = await app.request('GET', '/v4/tags?page_size=500&page=2');
      assert.deepEqual([second.body.data.length, second.body.page, second.body.pages], [21, 2, 2]);
      for (const path of [...UNLIMITED, `/node/instances/${node.id}/disks`, `/node/instances/${node.id}/configs`]) {
        const most = await app.request('GET', `/v4${path}?page_size=500`);
        assert.equal(most.status, 200, `${path}: ${JSON.stringify(most.body)}`);
        const over = await app.request('GET', `/v4${path}?page_size=501`);
        assert.deepEqual([over.status, over.body.errors?.[0]?.field], [400, 'page_size'], path);
        const under = await app.request('GET', `/v4${path}?page_size=24`);
        assert.equal(under.status, 400, path);
      }
      const kernels = await app.request('GET', '/v4/node/kernels?page_size=500');
      const all = await app.request('GET', '/v4/node/kernels?page_size=100');
      assert.equal(kernels.body.results, all.body.results);
      assert.equal(kernels.body.data.length, Math.min(500, kernels.body.results));
      assert.equal(kernels.body.pages, Math.ceil(kernels.body.results / 500));
    });
  });
}
