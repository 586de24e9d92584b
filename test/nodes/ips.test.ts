import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { startDnsServer } from '../helpers/dns-server.ts';
import { cumulo, operatorApp } from '../operator/helpers.ts';
import { createEmptyNode, createNode, eventsOf } from './helpers.ts';

/** The full, uncompressed spelling of an IPv6 address. */
function expand(address: string): string {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => g.padStart(4, '0')).join(':');
}

for (const dialect of DIALECTS) {
  describe(`node addresses [${dialect}]`, () => {
    test('the list holds the public IPv4 address, SLAAC and link-local IPv6, in the reference shape', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createNode(app);
      const res = await app.request('GET', `/v4/node/instances/${node.id}/ips`);
      assert.equal(res.status, 200);
      const { ipv4, ipv6 } = res.body;
      const [address] = node.ipv4;
      const subnet = address.split('.').slice(0, 3).join('.');
      assert.deepEqual(ipv4, {
        public: [
          {
            address,
            gateway: `${subnet}.1`,
            subnet_mask: '255.255.255.0',
            prefix: 24,
            type: 'ipv4',
            public: true,
            rdns: `${address.replaceAll('.', '-')}.ip.cumulo.local`,
            node_id: node.id,
            region: 'us-east',
            interface_id: null,
            vpc_nat_1_1: null,
            reserved: false,
            assigned_entity: { id: node.id, type: 'node', label: node.label, url: `/v4/node/instances/${node.id}` },
          },
        ],
        private: [],
        shared: [],
        reserved: [],
        vpc: [],
      });
      assert.deepEqual(ipv6.vpc, [], 'VPCs are not offered');
      assert.equal(`${ipv6.slaac.address}/128`, node.ipv6);
      assert.deepEqual(
        [ipv6.slaac.prefix, ipv6.slaac.gateway, ipv6.slaac.subnet_mask, ipv6.slaac.public, ipv6.slaac.rdns],
        [64, 'fe80::1', 'ffff:ffff:ffff:ffff::', true, null],
      );
      assert.equal(ipv6.link_local.address.split(':').slice(-4).join(':'), ipv6.slaac.address.split(':').slice(-4).join(':'));
      assert.match(ipv6.link_local.address, /^fe80::/);
      assert.equal(ipv6.link_local.public, false);
      assert.deepEqual(ipv6.global, [], 'no IPv6 range is routed to the node: an empty list');
    });

    test('allocate a public address (once the operator allows it) or one private address; view, rdns and remove them, with events', async (t) => {
      const dns = await startDnsServer(t);
      const app = await operatorApp(t, dialect, { dnsResolvers: [dns.address] });
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const base = `/v4/node/instances/${node.id}/ips`;
      const allowance = await app.admin('PUT', `/admin/nodes/${node.id}/ip-allowance`, { body: { public_ipv4: 2 } });
      assert.deepEqual(allowance.body, { node_id: node.id, public_ipv4: 2 });
      const extra = await app.request('POST', base, { body: { type: 'ipv4', public: true } });
      assert.equal(extra.status, 200, JSON.stringify(extra.body));
      assert.equal(extra.body.public, true);
      const priv = await app.request('POST', base, { body: { type: 'ipv4', public: false } });
      assert.equal(priv.status, 200);
      assert.match(priv.body.address, /^192\.168\./);
      assert.deepEqual(
        [priv.body.prefix, priv.body.subnet_mask, priv.body.gateway, priv.body.rdns],
        [17, '255.255.128.0', null, null],
      );
      const second = await app.request('POST', base, { body: { type: 'ipv4', public: false } });
      assert.equal(second.status, 400, 'one private address per node');
      assert.equal(second.body.errors[0].field, 'public');
      const third = await app.request('POST', base, { body: { type: 'ipv4', public: true } });
      assert.equal(third.status, 400, 'two public addresses are all the node is allowed');
      assert.equal((await app.request('POST', base, { body: { type: 'ipv6', public: true } })).status, 400);
      assert.equal((await app.request('POST', base, { body: { type: 'ipv4' } })).status, 400);
      const node2 = (await app.request('GET', `/v4/node/instances/${node.id}`)).body;
      assert.deepEqual(node2.ipv4, [node.ipv4[0], extra.body.address, priv.body.address]);

      assert.deepEqual((await app.request('GET', `${base}/${extra.body.address}`)).body, extra.body);
      const slaac = node.ipv6.replace('/128', '');
      assert.equal((await app.request('GET', `${base}/${encodeURIComponent(expand(slaac))}`)).body.address, slaac);
      const ips = (await app.request('GET', base)).body;
      const linkLocal = ips.ipv6.link_local.address;
      assert.deepEqual((await app.request('GET', `${base}/${encodeURIComponent(linkLocal)}`)).body, ips.ipv6.link_local);
      assert.equal((await app.request('GET', `${base}/10.9.9.9`)).status, 404);
      assert.equal((await app.request('GET', `${base}/not-an-ip`)).status, 404);

      dns.set('www.example.com', [extra.body.address]);
      dns.set('v6.example.com', [slaac]);
      dns.set('p.example.com', [priv.body.address]);
      const named = await app.request('PUT', `${base}/${extra.body.address}`, { body: { rdns: 'www.example.com' } });
      assert.equal(named.status, 200);
      assert.equal(named.body.rdns, 'www.example.com');
      const reset = await app.request('PUT', `${base}/${extra.body.address}`, { body: { rdns: null } });
      assert.equal(reset.body.rdns, `${extra.body.address.replaceAll('.', '-')}.ip.cumulo.local`);
      const v6 = await app.request('PUT', `${base}/${encodeURIComponent(slaac)}`, { body: { rdns: 'v6.example.com' } });
      assert.equal(v6.body.rdns, 'v6.example.com');
      const badName = await app.request('PUT', `${base}/${extra.body.address}`, { body: { rdns: 'not a host' } });
      assert.equal(badName.status, 400);
      assert.equal(badName.body.errors[0].field, 'rdns');
      assert.equal((await app.request('PUT', `${base}/${priv.body.address}`, { body: { rdns: 'p.example.com' } })).status, 400);

      assert.equal((await app.request('DELETE', `${base}/${encodeURIComponent(slaac)}`)).status, 400);
      assert.equal((await app.request('DELETE', `${base}/${priv.body.address}`)).status, 200);
      assert.equal((await app.request('DELETE', `${base}/${extra.body.address}`)).status, 200);
      const last = await app.request('DELETE', `${base}/${node.ipv4[0]}`);
      assert.equal(last.status, 400, 'the last public IPv4 address stays');
      assert.equal((await app.request('GET', `${base}/${extra.body.address}`)).status, 404);

      assert.equal((await eventsOf(app, me.accountId, 'node_addip')).length, 2);
      assert.equal((await eventsOf(app, me.accountId, 'node_deleteip')).length, 2);
      assert.equal((await eventsOf(app, me.accountId, 'ipaddress_update')).length, 3);
    });

    test('a second public IPv4 address needs the operator to raise the allowance (admin API or CLI); refusals change nothing', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const base = `/v4/node/instances/${node.id}/ips`;
      const refused = await app.request('POST', base, { body: { type: 'ipv4', public: true } });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.errors[0].field, 'public');
      assert.match(refused.body.errors[0].reason, /support ticket/);
      assert.deepEqual((await app.request('GET', `/v4/node/instances/${node.id}`)).body.ipv4, node.ipv4, 'no address was added');
      assert.equal((await eventsOf(app, me.accountId, 'node_addip')).length, 0);
      const priv = await app.request('POST', base, { body: { type: 'ipv4', public: false } });
      assert.equal(priv.status, 200, 'a private address needs no allowance');

      for (const body of [{ public_ipv4: 0 }, { public_ipv4: 'two' }, {}, { public_ipv4: 0, extra: 1 }]) {
        const bad = await app.admin('PUT', `/admin/nodes/${node.id}/ip-allowance`, { body });
        assert.equal(bad.status, 400, JSON.stringify(body));
      }
      assert.equal((await app.admin('PUT', '/admin/nodes/987654/ip-allowance', { body: { public_ipv4: 2 } })).status, 404);

      const cli = await cumulo(app, ['admin', 'nodes', 'ip-allowance', String(node.id), '--public-ipv4', '3']);
      assert.equal(cli.code, 0, cli.stderr);
      assert.deepEqual(JSON.parse(cli.stdout), { node_id: node.id, public_ipv4: 3 });
      for (const n of [1, 2]) {
        const res = await app.request('POST', base, { body: { type: 'ipv4', public: true } });
        assert.equal(res.status, 200, `extra address ${n}: ${JSON.stringify(res.body)}`);
      }
      assert.equal((await app.request('POST', base, { body: { type: 'ipv4', public: true } })).status, 400, 'three in all');
      const publics = (await app.request('GET', base)).body.ipv4.public;
      assert.equal(publics.length, 3);

      await app.admin('PUT', `/admin/nodes/${node.id}/ip-allowance`, { body: { public_ipv4: 1 } });
      assert.equal((await app.request('GET', base)).body.ipv4.public.length, 3, 'a lowered allowance takes nothing away');
      assert.equal(
        (await app.request('DELETE', `${base}/${publics[2].address}`)).status,
        200,
        'addresses beyond it can be given back',
      );
      assert.equal((await app.request('POST', base, { body: { type: 'ipv4', public: true } })).status, 400);
      const bad = await cumulo(app, ['admin', 'nodes', 'ip-allowance', String(node.id), '--public-ipv4', '0']);
      assert.equal(bad.code, 1);
    });

    test('concurrent allocations do not pass the allowance', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await createEmptyNode(app);
      const base = `/v4/node/instances/${node.id}/ips`;
      await app.admin('PUT', `/admin/nodes/${node.id}/ip-allowance`, { body: { public_ipv4: 3 } });
      const results = await Promise.all(
        Array.from({ length: 6 }, () => app.request('POST', base, { body: { type: 'ipv4', public: true } })),
      );
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 400, 400, 400, 400]);
      assert.equal((await app.request('GET', base)).body.ipv4.public.length, 3);
    });

    test('the allowance goes with the node when it is deleted', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await createEmptyNode(app);
      await app.admin('PUT', `/admin/nodes/${node.id}/ip-allowance`, { body: { public_ipv4: 2 } });
      assert.equal((await app.request('DELETE', `/v4/node/instances/${node.id}`)).status, 200);
      const rows = await app.runtime.ctx.db.selectFrom('ip_allowances').selectAll().execute();
      assert.deepEqual(rows, []);
    });

    test("another node's address is not found through this node", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await createEmptyNode(app);
      const b = await createEmptyNode(app);
      assert.equal((await app.request('GET', `/v4/node/instances/${a.id}/ips/${b.ipv4[0]}`)).status, 404);
      assert.equal((await app.request('DELETE', `/v4/node/instances/${a.id}/ips/${b.ipv4[0]}`)).status, 404);
    });
  });
}
