import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { startDnsServer } from '../helpers/dns-server.ts';
import { createEmptyNode, eventsOf } from '../nodes/helpers.ts';
import { operatorApp } from '../operator/helpers.ts';

/** The full, uncompressed spelling of an IPv6 address. */
function expand(address: string): string {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => g.padStart(4, '0')).join(':');
}

const slaacOf = (node: { ipv6: string }) => node.ipv6.replace('/128', '');
const addresses = (page: { data: { address: string }[] }) => page.data.map((a) => a.address).sort();

for (const dialect of DIALECTS) {
  describe(`networking addresses [${dialect}]`, () => {
    test("the list holds the account's public IPv4 and SLAAC addresses, never private ones, paginated and filtered by region", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await createEmptyNode(app, { private_ip: true });
      const b = await createEmptyNode(app, { region: 'us-central' });
      const other = await newAccount(app);
      await createEmptyNode(app, {}, other.token);

      const res = await app.request('GET', '/v4/networking/ips');
      assert.equal(res.status, 200);
      assert.deepEqual(addresses(res.body), [a.ipv4[0], b.ipv4[0], slaacOf(a), slaacOf(b)].sort());
      assert.deepEqual([res.body.page, res.body.pages, res.body.results], [1, 1, 4]);
      const private4 = a.ipv4.find((x: string) => x.startsWith('192.168.'));
      assert.ok(private4, 'the node has a private address');
      assert.ok(!addresses(res.body).includes(private4), 'private addresses are not listed');
      const v4 = res.body.data.find((x: { address: string }) => x.address === a.ipv4[0]);
      assert.deepEqual(
        [v4.type, v4.public, v4.node_id, v4.region, v4.rdns],
        ['ipv4', true, a.id, 'us-east', `${a.ipv4[0].replaceAll('.', '-')}.ip.cumulo.local`],
      );
      const v6 = res.body.data.find((x: { address: string }) => x.address === slaacOf(b));
      assert.deepEqual([v6.type, v6.public, v6.node_id, v6.region, v6.prefix], ['ipv6', true, b.id, 'us-central', 64]);

      const central = await app.request('GET', '/v4/networking/ips', { headers: { 'x-filter': '{"region":"us-central"}' } });
      assert.equal(central.status, 200);
      assert.deepEqual(addresses(central.body), [b.ipv4[0], slaacOf(b)].sort());
      const byAddress = await app.request('GET', '/v4/networking/ips', { headers: { 'x-filter': `{"address":"${a.ipv4[0]}"}` } });
      assert.equal(byAddress.status, 400, 'only region is filterable');
      assert.equal(byAddress.body.errors[0].field, 'X-Filter');

      const small = await app.request('GET', '/v4/networking/ips?page_size=25&page=2');
      assert.deepEqual([small.status, small.body.data.length, small.body.page, small.body.results], [200, 0, 2, 4]);
      for (const size of ['24', '501']) {
        const bad = await app.request('GET', `/v4/networking/ips?page_size=${size}`);
        assert.equal(bad.status, 400, `page_size ${size}`);
        assert.equal(bad.body.errors[0].field, 'page_size');
      }
    });

    test("one address of the account by any spelling, private ones included; another account's is not found", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app, { private_ip: true });
      const other = await newAccount(app);
      const theirs = await createEmptyNode(app, {}, other.token);

      const [public4, private4] = node.ipv4;
      const one = await app.request('GET', `/v4/networking/ips/${public4}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body, (await app.request('GET', `/v4/node/instances/${node.id}/ips/${public4}`)).body);
      const priv = await app.request('GET', `/v4/networking/ips/${private4}`);
      assert.equal(priv.status, 200);
      assert.deepEqual([priv.body.address, priv.body.public, priv.body.gateway, priv.body.rdns], [private4, false, null, null]);
      const v6 = await app.request('GET', `/v4/networking/ips/${encodeURIComponent(expand(slaacOf(node)).toUpperCase())}`);
      assert.equal(v6.status, 200);
      assert.equal(v6.body.address, slaacOf(node), 'the address is shown in its canonical form');

      assert.equal((await app.request('GET', `/v4/networking/ips/${theirs.ipv4[0]}`)).status, 404);
      assert.equal((await app.request('GET', `/v4/networking/ips/${theirs.ipv4[0]}`, { token: other.token })).status, 200);
      assert.equal((await app.request('GET', '/v4/networking/ips/10.9.9.9')).status, 404);
      assert.equal((await app.request('GET', '/v4/networking/ips/not-an-ip')).status, 404);
      const put = await app.request('PUT', `/v4/networking/ips/${theirs.ipv4[0]}`, { body: { rdns: 'x.example.com' } });
      assert.equal(put.status, 404);
      const after = await app.request('GET', `/v4/networking/ips/${theirs.ipv4[0]}`, { token: other.token });
      assert.equal(after.body.rdns, one.body.rdns.replace(public4.replaceAll('.', '-'), theirs.ipv4[0].replaceAll('.', '-')));
    });

    test('a restricted user sees and changes only addresses of nodes it holds a grant on', async (t) => {
      const dns = await startDnsServer(t);
      const app = await buildTestApp(t, { dialect, config: { dnsResolvers: [dns.address] } });
      const me = await admin(app);
      const rw = await createEmptyNode(app);
      const ro = await createEmptyNode(app);
      const hidden = await createEmptyNode(app);
      const bob = await newUser(app, me.accountId, { restricted: true });
      const grant = await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        body: {
          node: [
            { id: rw.id, permissions: 'read_write' },
            { id: ro.id, permissions: 'read_only' },
          ],
        },
      });
      assert.equal(grant.status, 200);

      const list = await app.request('GET', '/v4/networking/ips', { token: bob.token });
      assert.equal(list.status, 200);
      assert.deepEqual(addresses(list.body), [rw.ipv4[0], ro.ipv4[0], slaacOf(rw), slaacOf(ro)].sort());
      assert.equal((await app.request('GET', `/v4/networking/ips/${hidden.ipv4[0]}`, { token: bob.token })).status, 404);
      assert.equal((await app.request('GET', `/v4/networking/ips/${ro.ipv4[0]}`, { token: bob.token })).status, 200);

      dns.set('bob.example.com', [rw.ipv4[0], ro.ipv4[0], hidden.ipv4[0]]);
      const body = { rdns: 'bob.example.com' };
      const readOnly = await app.request('PUT', `/v4/networking/ips/${ro.ipv4[0]}`, { token: bob.token, body });
      assert.equal(readOnly.status, 403);
      const unseen = await app.request('PUT', `/v4/networking/ips/${hidden.ipv4[0]}`, { token: bob.token, body });
      assert.equal(unseen.status, 404);
      const allowed = await app.request('PUT', `/v4/networking/ips/${rw.ipv4[0]}`, { token: bob.token, body });
      assert.equal(allowed.status, 200);
      assert.equal(allowed.body.rdns, 'bob.example.com');
      const untouched = await app.request('GET', `/v4/networking/ips/${ro.ipv4[0]}`);
      assert.equal(untouched.body.rdns, `${ro.ipv4[0].replaceAll('.', '-')}.ip.cumulo.local`);

      const alloc = await app.request('POST', '/v4/networking/ips', {
        token: bob.token,
        body: { type: 'ipv4', public: false, node_id: hidden.id },
      });
      assert.equal(alloc.status, 400, 'a node the caller cannot see is a bad node_id');
      assert.equal(alloc.body.errors[0].field, 'node_id');
      const allocRo = await app.request('POST', '/v4/networking/ips', {
        token: bob.token,
        body: { type: 'ipv4', public: false, node_id: ro.id },
      });
      assert.equal(allocRo.status, 403);
      const allocRw = await app.request('POST', '/v4/networking/ips', {
        token: bob.token,
        body: { type: 'ipv4', public: false, node_id: rw.id },
      });
      assert.equal(allocRw.status, 200);
      assert.equal(allocRw.body.node_id, rw.id);
    });

    test('allocate: the node-address rule (allowance, one private address), events, refusals that change nothing', async (t) => {
      const app = await operatorApp(t, dialect);
      const me = await admin(app);
      const node = await createEmptyNode(app);
      const other = await newAccount(app);
      const theirs = await createEmptyNode(app, {}, other.token);
      const post = (body: unknown) => app.request('POST', '/v4/networking/ips', { body });

      const refused = await post({ type: 'ipv4', public: true, node_id: node.id });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.errors[0].field, 'public');
      assert.match(refused.body.errors[0].reason, /support ticket/);
      for (const [body, field] of [
        [{ type: 'ipv6', public: true, node_id: node.id }, 'type'],
        [{ public: true, node_id: node.id }, 'type'],
        [{ type: 'ipv4', node_id: node.id }, 'public'],
        [{ type: 'ipv4', public: true }, 'node_id'],
        [{ type: 'ipv4', public: true, node_id: theirs.id }, 'node_id'],
        [{ type: 'ipv4', public: true, node_id: 987654 }, 'node_id'],
      ] as const) {
        const res = await post(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(res.body));
      }
      assert.deepEqual((await app.request('GET', `/v4/node/instances/${node.id}`)).body.ipv4, node.ipv4, 'nothing was added');
      assert.equal((await eventsOf(app, me.accountId, 'node_addip')).length, 0);

      await app.admin('PUT', `/admin/nodes/${node.id}/ip-allowance`, { body: { public_ipv4: 2 } });
      const extra = await post({ type: 'ipv4', public: true, node_id: node.id });
      assert.equal(extra.status, 200, JSON.stringify(extra.body));
      assert.deepEqual(
        [extra.body.type, extra.body.public, extra.body.node_id, extra.body.region],
        ['ipv4', true, node.id, 'us-east'],
      );
      const priv = await post({ type: 'ipv4', public: false, node_id: node.id });
      assert.equal(priv.status, 200);
      assert.match(priv.body.address, /^192\.168\./);
      const second = await post({ type: 'ipv4', public: false, node_id: node.id });
      assert.equal(second.status, 400, 'one private address per node');
      assert.equal(second.body.errors[0].field, 'public');
      assert.equal((await post({ type: 'ipv4', public: true, node_id: node.id })).status, 400, 'the allowance is used up');

      const view = (await app.request('GET', `/v4/node/instances/${node.id}/ips`)).body;
      assert.deepEqual(
        view.ipv4.public.map((a: { address: string }) => a.address),
        [node.ipv4[0], extra.body.address],
      );
      assert.deepEqual(view.ipv4.private, [priv.body]);
      const events = await eventsOf(app, me.accountId, 'node_addip');
      assert.equal(events.length, 2);
      assert.deepEqual(
        events.map((e) => [e.entity_type, e.entity_id, e.message]),
        [
          ['node', node.id, extra.body.address],
          ['node', node.id, priv.body.address],
        ],
      );
    });

    test('two allocations at once for a node allowed one more address: exactly one wins', async (t) => {
      const app = await operatorApp(t, dialect);
      const node = await createEmptyNode(app);
      await app.admin('PUT', `/admin/nodes/${node.id}/ip-allowance`, { body: { public_ipv4: 2 } });
      const body = { type: 'ipv4', public: true, node_id: node.id };
      const results = await Promise.all([1, 2].map(() => app.request('POST', '/v4/networking/ips', { body })));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400]);
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/ips`)).body.ipv4.public.length, 2);
    });

    test('rDNS: the same rule as the node route; null resets a public IPv4 address to its default name', async (t) => {
      const dns = await startDnsServer(t);
      const app = await buildTestApp(t, { dialect, config: { dnsResolvers: [dns.address] } });
      const me = await admin(app);
      const node = await createEmptyNode(app, { private_ip: true });
      const [public4, private4] = node.ipv4;
      const url = `/v4/networking/ips/${public4}`;
      dns.set('www.example.com', [public4]);
      dns.set('v6.example.com', [slaacOf(node)]);
      dns.set('p.example.com', [private4]);

      const named = await app.request('PUT', url, { body: { rdns: 'www.example.com' } });
      assert.equal(named.status, 200, JSON.stringify(named.body));
      assert.equal(named.body.rdns, 'www.example.com');
      assert.equal((await app.request('GET', `/v4/node/instances/${node.id}/ips/${public4}`)).body.rdns, 'www.example.com');
      const reset = await app.request('PUT', url, { body: { rdns: null } });
      assert.equal(reset.status, 200);
      assert.equal(reset.body.rdns, `${public4.replaceAll('.', '-')}.ip.cumulo.local`);
      const v6 = await app.request('PUT', `/v4/networking/ips/${encodeURIComponent(expand(slaacOf(node)))}`, {
        body: { rdns: 'v6.example.com' },
      });
      assert.deepEqual([v6.status, v6.body.address, v6.body.rdns], [200, slaacOf(node), 'v6.example.com']);

      const badName = await app.request('PUT', url, { body: { rdns: 'not a host' } });
      assert.equal(badName.status, 400);
      assert.equal(badName.body.errors[0].field, 'rdns');
      const priv = await app.request('PUT', `/v4/networking/ips/${private4}`, { body: { rdns: 'p.example.com' } });
      assert.equal(priv.status, 400);
      assert.equal(priv.body.errors[0].field, 'rdns');
      assert.equal((await app.request('GET', `/v4/networking/ips/${private4}`)).body.rdns, null);
      assert.equal((await app.request('GET', url)).body.rdns, reset.body.rdns, 'refusals change nothing');
      const nothing = await app.request('PUT', url, { body: {} });
      assert.deepEqual([nothing.status, nothing.body.rdns], [200, reset.body.rdns], 'a body without rdns changes nothing');
      assert.equal((await eventsOf(app, me.accountId, 'ipaddress_update')).length, 3, 'and records no event');
    });
  });
}
