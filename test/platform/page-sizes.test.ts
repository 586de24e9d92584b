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
    test('25..100 where the description bounds them, 25..500 elsewhere; a page of 500 holds 500', async (t) => {
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
        const over = await app.request('GET', `/v4${path}?page_size=101`);
        assert.deepEqual([over.status, over.body.errors?.[0]?.field], [400, 'page_size'], path);
      }
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
