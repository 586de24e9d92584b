import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { DIALECTS } from '../helpers/app.ts';
import { act, settle } from '../node-ops/helpers.ts';
import { createEmptyNode, manualClock, runningNode } from '../nodes/helpers.ts';
import { cumulo, ok, operatorApp } from '../operator/helpers.ts';

for (const dialect of DIALECTS) {
  describe(`IPv6 blocks, operator side [${dialect}]`, () => {
    test('a node that migrates to another region gives its ranges back', async (t) => {
      const app = await operatorApp(t, dialect, {}, manualClock());
      const node = await runningNode(app);
      const stays = await runningNode(app);
      await ok(app.admin('POST', '/admin/ipv6/ranges', { body: { node_id: node.id } }));
      await ok(app.admin('POST', '/admin/ipv6/ranges', { body: { node_id: node.id, prefix_length: 56 } }));
      const kept = await ok(app.admin('POST', '/admin/ipv6/ranges', { body: { node_id: stays.id } }));
      await ok(act(app, node.id, 'migrate', { region: 'us-central' }));
      await settle(app);
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}`)).body.region, 'us-central');
      assert.deepEqual((await app.request('GET', `/v4/node/instances/${node.id}/ips`)).body.ipv6.global, []);
      assert.deepEqual((await app.request('GET', '/v4/networking/ipv6/ranges')).body.data, [kept]);
      const again = await ok(app.admin('POST', '/admin/ipv6/ranges', { body: { node_id: node.id } }));
      assert.equal(again.region, 'us-central', "a new range comes from the node's new region");
      assert.equal(again.range, '2001:db8:2:1::');
    });

    test('cumulo admin ipv6 add-range, add-pool and remove work on the database as the admin API does', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const node = await createEmptyNode(app);

      const wide = await cumulo(app, ['admin', 'ipv6', 'add-range', String(node.id), '--prefix', '56']);
      assert.equal(wide.code, 0, wide.stderr);
      assert.deepEqual(JSON.parse(wide.stdout), {
        range: '2001:db8:1:100::',
        prefix: 56,
        region: 'us-east',
        route_target: '2001:db8:1:1ff:ffff:ffff:ffff:ffff',
      });
      const narrow = await cumulo(app, ['admin', 'ipv6', 'add-range', String(node.id)]);
      assert.equal(narrow.code, 0, narrow.stderr);
      assert.equal(JSON.parse(narrow.stdout).range, '2001:db8:1:1::');
      const pool = await cumulo(app, ['admin', 'ipv6', 'add-pool', '--account', String(me.accountId), '--region', 'us-east']);
      assert.equal(pool.code, 0, pool.stderr);
      assert.deepEqual(JSON.parse(pool.stdout), {
        range: '2001:db8:1:2::',
        prefix: 124,
        region: 'us-east',
        route_target: '2001:db8:1:2::f',
      });
      const global = (await app.request('GET', `/v4/node/instances/${node.id}/ips`)).body.ipv6.global;
      assert.deepEqual(
        global.map((r: { range: string }) => r.range),
        ['2001:db8:1:100::', '2001:db8:1:1::'],
      );

      const removed = await cumulo(app, ['admin', 'ipv6', 'remove', '2001:db8:1:100::']);
      assert.equal(removed.code, 0, removed.stderr);
      assert.deepEqual(JSON.parse(removed.stdout), {});
      assert.equal((await app.request('GET', '/v4/networking/ipv6/ranges')).body.results, 1);

      const refusals: [string[], RegExp][] = [
        [['admin', 'ipv6', 'add-range', String(node.id), '--prefix', '48'], /prefix_length/],
        [['admin', 'ipv6', 'remove', '2001:db8:1:100::'], /No IPv6 pool or range starts at/],
      ];
      for (const [args, reason] of refusals) {
        const res = await cumulo(app, args);
        assert.equal(res.code, 1, args.join(' '));
        assert.match(res.stderr, reason, args.join(' '));
      }
      const help = await cumulo(app, ['admin', 'ipv6', 'add-range', '--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /Usage: cumulo admin ipv6 add-range <node-id> \[--prefix 64\|56\]/);
    });
  });
}
