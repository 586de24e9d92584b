import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAddress, parseCidr } from '../../src/net/cidr.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type Reply } from '../helpers/app.ts';
import { catalogWith, createEmptyNode } from '../nodes/helpers.ts';
import { type OperatorApp, ok, operatorApp } from '../operator/helpers.ts';

interface Block {
  range: string;
  prefix: number;
  region: string;
  route_target: string;
}

function addRange(app: OperatorApp, nodeId: number, prefix?: 64 | 56) {
  return app.admin('POST', '/admin/ipv6/ranges', { body: { node_id: nodeId, ...(prefix ? { prefix_length: prefix } : {}) } });
}

function addPool(app: OperatorApp, accountId: number, region = 'us-east') {
  return app.admin('POST', '/admin/ipv6/pools', { body: { account_id: accountId, region } });
}

/** Asserts that the blocks are aligned networks inside `prefix`, outside its first /64 (SLAAC), none overlapping another. */
function assertDisjointInPrefix(blocks: readonly Block[], prefix: string): void {
  const within = parseCidr(prefix);
  assert.ok(within);
  const slaacEnd = within.first + (1n << 64n);
  const spans = blocks.map((b) => {
    const net = parseCidr(`${b.range}/${b.prefix}`);
    assert.ok(net, `${b.range}/${b.prefix} is an aligned network`);
    const last = net.first + net.size - 1n;
    assert.equal(parseAddress(b.route_target)?.value, last, `${b.range}/${b.prefix}: route_target is the last address`);
    assert.ok(net.first >= slaacEnd && last < within.first + within.size, `${b.range}/${b.prefix} lies in ${prefix} past SLAAC`);
    return { name: `${b.range}/${b.prefix}`, first: net.first, last };
  });
  spans.sort((a, b) => (a.first < b.first ? -1 : 1));
  for (let i = 1; i < spans.length; i += 1) {
    const [before, after] = [spans[i - 1], spans[i]];
    assert.ok(before && after && before.last < after.first, `${before?.name} and ${after?.name} overlap`);
  }
}

for (const dialect of DIALECTS) {
  describe(`IPv6 pools and ranges [${dialect}]`, () => {
    test('empty pages until the operator cuts blocks; page sizes 25..500, at most 100 a page; X-Filter on region', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const path of ['pools', 'ranges']) {
        const res = await app.request('GET', `/v4/networking/ipv6/${path}`);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { data: [], page: 1, pages: 1, results: 0 });
        for (const size of ['24', '501']) {
          const bad = await app.request('GET', `/v4/networking/ipv6/${path}?page_size=${size}`);
          assert.equal(bad.status, 400, `${path} page_size ${size}`);
          assert.equal(bad.body.errors[0].field, 'page_size');
        }
      }
      const filter = { headers: { 'x-filter': '{"region":"us-east"}' } };
      assert.equal((await app.request('GET', '/v4/networking/ipv6/pools', filter)).status, 200);
      // The reference marks no range field filterable; the live service takes region, as clients send it.
      assert.equal((await app.request('GET', '/v4/networking/ipv6/ranges', filter)).status, 200);
      const ranges = await app.request('GET', '/v4/networking/ipv6/ranges', { headers: { 'x-filter': '{"prefix":64}' } });
      assert.equal(ranges.status, 400);
      assert.equal(ranges.body.errors[0].field, 'X-Filter');
    });

    test('the operator routes ranges and gives pools: cut in order from the prefix, listed, in the node view', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const hidden = await createEmptyNode(app);
      const other = await newAccount(app);

      const first = await ok(addRange(app, node.id));
      assert.deepEqual(first, {
        range: '2001:db8:1:1::',
        prefix: 64,
        region: 'us-east',
        route_target: '2001:db8:1:1:ffff:ffff:ffff:ffff',
      });
      const wide = await ok(addRange(app, hidden.id, 56));
      assert.deepEqual(wide, {
        range: '2001:db8:1:100::',
        prefix: 56,
        region: 'us-east',
        route_target: '2001:db8:1:1ff:ffff:ffff:ffff:ffff',
      });
      const pool = await ok(addPool(app, me.accountId));
      assert.deepEqual(pool, { range: '2001:db8:1:2::', prefix: 124, region: 'us-east', route_target: '2001:db8:1:2::f' });
      assert.equal((await ok(addPool(app, me.accountId))).range, '2001:db8:1:2::10', 'pools pack into one /64');
      assert.equal((await ok(addPool(app, me.accountId, 'us-central'))).range, '2001:db8:2:1::');
      const second = await ok(addRange(app, node.id));
      assert.equal(second.range, '2001:db8:1:3::');

      const pools = await app.request('GET', '/v4/networking/ipv6/pools');
      assert.deepEqual(
        pools.body.data.map((p: Block) => `${p.region} ${p.range}/${p.prefix}`),
        ['us-central 2001:db8:2:1::/124', 'us-east 2001:db8:1:2::/124', 'us-east 2001:db8:1:2::10/124'],
      );
      const east = await app.request('GET', '/v4/networking/ipv6/pools', { headers: { 'x-filter': '{"region":"us-east"}' } });
      assert.deepEqual(east.body.data[0], pool);
      assert.equal(east.body.results, 2);
      const ranges = await app.request('GET', '/v4/networking/ipv6/ranges');
      assert.deepEqual(
        ranges.body.data.map((r: Block) => r.range),
        ['2001:db8:1:100::', '2001:db8:1:1::', '2001:db8:1:3::'],
      );
      const ips = (await app.request('GET', `/v4/node/instances/${node.id}/ips`)).body.ipv6;
      assert.deepEqual(ips.global, [first, second]);
      assert.equal(ips.slaac.prefix, 64);
      assert.ok(ips.slaac.address.startsWith('2001:db8:1:0:'), 'SLAAC stays in the first /64');
      assert.deepEqual((await app.request('GET', `/v4/node/instances/${hidden.id}/ips`)).body.ipv6.global, [wide]);

      for (const path of ['pools', 'ranges']) {
        const theirs = await app.request('GET', `/v4/networking/ipv6/${path}`, { token: other.token });
        assert.equal(theirs.body.results, 0, `another account's ${path} are not listed`);
      }
      const theirNode = await createEmptyNode(app, {}, other.token);
      assert.equal((await ok(addRange(app, theirNode.id))).range, '2001:db8:1:4::', 'blocks of every account are avoided');
      const theirIps = await app.request('GET', `/v4/node/instances/${theirNode.id}/ips`, { token: other.token });
      assert.equal(theirIps.body.ipv6.global[0].range, '2001:db8:1:4::');
    });

    test('a restricted user sees the ranges of nodes it holds a grant on, and every pool', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const hidden = await createEmptyNode(app);
      const mine = await ok(addRange(app, node.id));
      await ok(addRange(app, hidden.id));
      await ok(addPool(app, me.accountId));
      const bob = await newUser(app, me.accountId, { restricted: true });
      await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: { node: [{ id: node.id, permissions: 'read_only' }] },
      });
      const ranges = await app.request('GET', '/v4/networking/ipv6/ranges', { token: bob.token });
      assert.deepEqual(ranges.body.data, [mine]);
      assert.equal((await app.request('GET', '/v4/networking/ipv6/pools', { token: bob.token })).body.results, 1);
      assert.deepEqual((await app.request('GET', `/v4/node/instances/${node.id}/ips`, { token: bob.token })).body.ipv6.global, [
        mine,
      ]);
      assert.equal((await app.request('GET', `/v4/node/instances/${hidden.id}/ips`, { token: bob.token })).status, 404);
    });

    test('a deleted node gives its ranges back; the operator takes blocks back by their first address', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const keeper = await createEmptyNode(app);
      await ok(addRange(app, node.id));
      await ok(addRange(app, node.id, 56));
      const kept = await ok(addRange(app, keeper.id));
      assert.equal((await app.request('DELETE', `/v4/node/instances/${node.id}`)).status, 200);
      const left = await app.request('GET', '/v4/networking/ipv6/ranges');
      assert.deepEqual(left.body.data, [kept]);
      assert.equal((await ok(addRange(app, keeper.id))).range, '2001:db8:1:1::', "the deleted node's /64 is free again");

      const pool = await ok(addPool(app, me.accountId));
      assert.deepEqual(await ok(app.admin('DELETE', `/admin/ipv6/${pool.range}`)), {});
      assert.equal((await app.request('GET', '/v4/networking/ipv6/pools')).body.results, 0);
      assert.equal((await app.admin('DELETE', `/admin/ipv6/${pool.range}`)).status, 404, 'gone already');
      assert.equal((await app.admin('DELETE', '/admin/ipv6/not-an-address')).status, 404);
      // Any spelling of the first address names the block.
      assert.deepEqual(await ok(app.admin('DELETE', '/admin/ipv6/2001:0DB8:0001:0002:0000:0000:0000:0000')), {});
      const ranges = await app.request('GET', '/v4/networking/ipv6/ranges');
      assert.deepEqual(
        ranges.body.data.map((r: Block) => r.range),
        ['2001:db8:1:1::'],
      );
      assert.deepEqual((await app.request('GET', `/v4/node/instances/${keeper.id}/ips`)).body.ipv6.global.length, 1);
    });

    test('bad requests are 400s naming the field and cut nothing', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const cases: [string, unknown, string][] = [
        ['ranges', { node_id: 987654 }, 'node_id'],
        ['ranges', { node_id: node.id, prefix_length: 48 }, 'prefix_length'],
        ['ranges', { node_id: node.id, prefix_length: '64' }, 'prefix_length'],
        ['ranges', { node_id: node.id, prefix_length: 48, extra: 1 }, 'prefix_length'],
        ['ranges', {}, 'node_id'],
        ['pools', { account_id: 987654, region: 'us-east' }, 'account_id'],
        ['pools', { account_id: me.accountId, region: 'xx-nowhere' }, 'region'],
        ['pools', { account_id: me.accountId }, 'region'],
      ];
      for (const [path, body, field] of cases) {
        const res = await app.admin('POST', `/admin/ipv6/${path}`, { body });
        assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.errors[0].field, field, `${path} ${JSON.stringify(body)}`);
      }
      for (const path of ['pools', 'ranges']) {
        assert.equal((await app.request('GET', `/v4/networking/ipv6/${path}`)).body.results, 0);
      }
    });

    test('many blocks of every size and account: aligned, inside the prefix, never in SLAAC, never overlapping', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const other = await newAccount(app);
      const nodes = [await createEmptyNode(app), await createEmptyNode(app, {}, other.token)];
      const made: Block[] = [];
      for (let i = 0; i < 36; i += 1) {
        const node = nodes[i % 2] as { id: number };
        const res =
          i % 3 === 2
            ? await addPool(app, i % 2 ? other.accountId : me.accountId)
            : await addRange(app, node.id, i % 4 ? 64 : 56);
        made.push(await ok(Promise.resolve(res)));
        // Give some back on the way, so later blocks fill holes.
        if (i % 7 === 6) await ok(app.admin('DELETE', `/admin/ipv6/${made.splice(i % 5, 1)[0]?.range}`));
      }
      assertDisjointInPrefix(made, '2001:db8:1::/48');
      const listed = [
        ...(await app.request('GET', '/v4/networking/ipv6/ranges')).body.data,
        ...(await app.request('GET', '/v4/networking/ipv6/ranges', { token: other.token })).body.data,
        ...(await app.request('GET', '/v4/networking/ipv6/pools')).body.data,
        ...(await app.request('GET', '/v4/networking/ipv6/pools', { token: other.token })).body.data,
      ];
      const key = (b: Block) => `${b.range}/${b.prefix}`;
      assert.deepEqual(listed.map(key).sort(), made.map(key).sort());
    });

    test('a full prefix is a 400 naming the field; a block of one size keeps out blocks of another', async (t) => {
      const catalogPath = catalogWith(t, (data) => {
        const region = data.regions.find((r) => r.id === 'us-east');
        if (region) region.ipv6_prefix = '2001:db8:1::/62';
      });
      const app = await operatorApp(t, dialect, { catalogPath });
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const full = (res: Reply, field: string, size: number) => {
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.errors[0].field, field);
        assert.match(res.body.errors[0].reason, new RegExp(`no /${size} left`));
      };
      full(await addRange(app, node.id, 56), 'prefix_length', 56);
      const ranges = [];
      for (let i = 0; i < 3; i += 1) ranges.push((await ok(addRange(app, node.id))).range);
      assert.deepEqual(ranges, ['2001:db8:1:1::', '2001:db8:1:2::', '2001:db8:1:3::'], 'every /64 but the SLAAC one');
      full(await addRange(app, node.id), 'prefix_length', 64);
      full(await addPool(app, me.accountId), 'region', 124);
      assert.equal((await app.request('GET', '/v4/networking/ipv6/pools')).body.results, 0);

      await ok(app.admin('DELETE', '/admin/ipv6/2001:db8:1:2::'));
      assert.equal((await ok(addPool(app, me.accountId))).range, '2001:db8:1:2::');
      full(await addRange(app, node.id), 'prefix_length', 64);
      const ips = (await app.request('GET', `/v4/node/instances/${node.id}/ips`)).body.ipv6;
      assert.ok(ips.slaac.address.startsWith('2001:db8:1:0:'));
      assert.equal(ips.global.length, 2);
    });

    test('20 concurrent range creations of two sizes get disjoint blocks', async (t) => {
      const app = await operatorApp(t, dialect);
      // One node each: writes to one node take turns, and these must not.
      const nodes = await Promise.all(Array.from({ length: 20 }, () => createEmptyNode(app)));
      const results = await Promise.all(nodes.map((node, i) => addRange(app, node.id, i % 2 ? 56 : 64)));
      assert.deepEqual(
        results.map((r) => r.status),
        Array(20).fill(200),
        JSON.stringify(results.find((r) => r.status !== 200)?.body),
      );
      const blocks = results.map((r) => r.body as Block);
      assert.equal(new Set(blocks.map((b) => b.range)).size, 20);
      assertDisjointInPrefix(blocks, '2001:db8:1::/48');
    });
  });
}
