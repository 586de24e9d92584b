import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode } from '../nodes/helpers.ts';

/** An IPv6 block as the operator's action (still to come) will write it. */
async function block(
  app: TestApp,
  accountId: number,
  fields: { kind: 'pool' | 'range'; range: string; prefix: number; route_target: string; node_id?: number; region?: string },
) {
  const { node_id = null, region = 'us-east', ...rest } = fields;
  await app.runtime.ctx.db
    .insertInto('ipv6_blocks')
    .values({ ...rest, node_id, region, account_id: accountId, created: '2030-01-01T00:00:00' })
    .execute();
}

for (const dialect of DIALECTS) {
  describe(`IPv6 pools and ranges [${dialect}]`, () => {
    test('empty pages until the operator cuts blocks; page sizes 25..100; X-Filter on region for pools only', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const path of ['pools', 'ranges']) {
        const res = await app.request('GET', `/v4/networking/ipv6/${path}`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { data: [], page: 1, pages: 1, results: 0 });
        for (const size of ['24', '101']) {
          const bad = await app.request('GET', `/v4/networking/ipv6/${path}?page_size=${size}`);
          assert.equal(bad.status, 400, `${path} page_size ${size}`);
          assert.equal(bad.body.errors[0].field, 'page_size');
        }
      }
      const filter = { headers: { 'x-filter': '{"region":"us-east"}' } };
      assert.equal((await app.request('GET', '/v4/networking/ipv6/pools', filter)).status, 200);
      const ranges = await app.request('GET', '/v4/networking/ipv6/ranges', filter);
      assert.equal(ranges.status, 400, 'the reference marks no range field filterable');
      assert.equal(ranges.body.errors[0].field, 'X-Filter');
    });

    test("blocks of the account are listed, a range shows in its node's ipv6.global and goes with the node", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const hidden = await createEmptyNode(app);
      const other = await newAccount(app);
      await block(app, me.accountId, {
        kind: 'pool',
        range: '2600:3c03::2:5000:0',
        prefix: 124,
        route_target: '2600:3c03::2:5000:f',
      });
      await block(app, me.accountId, {
        kind: 'pool',
        range: '2600:3c00::2:5000:0',
        prefix: 124,
        route_target: '2600:3c00::2:5000:f',
        region: 'us-central',
      });
      const range = { range: '2600:3c03:e000:1::', prefix: 64, route_target: '2600:3c03:e000:1:ffff:ffff:ffff:ffff' };
      await block(app, me.accountId, { kind: 'range', ...range, node_id: node.id });
      await block(app, me.accountId, {
        kind: 'range',
        range: '2600:3c03:e000:2::',
        prefix: 64,
        route_target: '2600:3c03:e000:2:ffff:ffff:ffff:ffff',
        node_id: hidden.id,
      });

      const pools = await app.request('GET', '/v4/networking/ipv6/pools');
      assert.deepEqual(
        pools.body.data.map((p: { region: string; prefix: number }) => [p.region, p.prefix]),
        [
          ['us-central', 124],
          ['us-east', 124],
        ],
      );
      const east = await app.request('GET', '/v4/networking/ipv6/pools', { headers: { 'x-filter': '{"region":"us-east"}' } });
      assert.deepEqual(east.body.data, [
        { range: '2600:3c03::2:5000:0', prefix: 124, region: 'us-east', route_target: '2600:3c03::2:5000:f' },
      ]);
      assert.equal((await app.request('GET', '/v4/networking/ipv6/ranges')).body.results, 2);
      const global = (await app.request('GET', `/v4/node/instances/${node.id}/ips`)).body.ipv6.global;
      assert.deepEqual(global, [{ ...range, region: 'us-east' }]);

      const theirs = await app.request('GET', '/v4/networking/ipv6/pools', { token: other.token });
      assert.equal(theirs.body.results, 0, "another account's blocks are not listed");
      const bob = await newUser(app, me.accountId, { restricted: true });
      await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: { node: [{ id: node.id, permissions: 'read_only' }] },
      });
      const bobs = await app.request('GET', '/v4/networking/ipv6/ranges', { token: bob.token });
      assert.deepEqual(
        bobs.body.data.map((r: { range: string }) => r.range),
        [range.range],
      );

      assert.equal((await app.request('DELETE', `/v4/node/instances/${node.id}`)).status, 200);
      const left = await app.request('GET', '/v4/networking/ipv6/ranges');
      assert.deepEqual(
        left.body.data.map((r: { range: string }) => r.range),
        ['2600:3c03:e000:2::'],
      );
    });
  });
}
