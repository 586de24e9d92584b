/**
 * X-Filter keys and orders the live service takes and today's clients send (test/clients/live/:
 * the `xfilter` of each operation), beyond the fields the reference marks filterable.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode, createNode, settle } from '../nodes/helpers.ts';
import { createScript } from '../stackscripts/helpers.ts';

async function listed(app: TestApp, url: string, filter: unknown, field = 'id'): Promise<unknown[]> {
  const res = await app.request('GET', url, { headers: { 'x-filter': JSON.stringify(filter) } });
  assert.equal(res.status, 200, `${url} ${JSON.stringify(filter)}: ${JSON.stringify(res.body)}`);
  return res.body.data.map((item: Record<string, unknown>) => item[field]);
}

for (const dialect of DIALECTS) {
  describe(`filters today's clients send [${dialect}]`, () => {
    test('+order_by created on nodes, images, domains and VLANs; created and updated as times', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const nodes = [];
      for (const label of ['first-node', 'second-node', 'third-node']) {
        nodes.push(await createEmptyNode(app, { label }));
        await settle(app, 1_000);
      }
      const ids = nodes.map((n) => n.id);
      assert.deepEqual(await listed(app, '/v4/node/instances', { '+order_by': 'created', '+order': 'desc' }), [...ids].reverse());
      assert.deepEqual(await listed(app, '/v4/node/instances', { created: { '+gte': nodes[1].created } }), ids.slice(1));
      assert.deepEqual(await listed(app, '/v4/node/instances', { '+order_by': 'updated' }), ids);
      // The site type a node shows is its region's (every region of the default catalog is core).
      assert.deepEqual(await listed(app, '/v4/node/instances', { site_type: 'core' }), ids);
      assert.deepEqual(await listed(app, '/v4/node/instances', { site_type: 'distributed' }), []);
      assert.deepEqual(await listed(app, '/v4/node/instances', { site_type: { '+neq': 'core' } }), []);

      const domains = [];
      for (const name of ['b-first.example', 'a-second.example']) {
        const res = await app.request('POST', '/v4/domains', {
          body: { domain: name, type: 'master', soa_email: 'hostmaster@example.org' },
        });
        domains.push(res.body.id);
        await settle(app, 1_000);
      }
      assert.deepEqual(await listed(app, '/v4/domains', { '+order_by': 'created', '+order': 'desc' }), [...domains].reverse());

      const images = await listed(app, '/v4/images', { '+order_by': 'created', '+order': 'asc', is_public: true });
      const all = (await app.request('GET', '/v4/images?page_size=500')).body.data as { id: string; created: string }[];
      const byCreated = [...all].sort((a, b) => a.created.localeCompare(b.created) || 0).map((i) => i.created);
      assert.deepEqual(
        images.map((id) => all.find((i) => i.id === id)?.created),
        byCreated,
      );

      for (const [node, label] of [
        [nodes[0], 'vlan-one'],
        [nodes[1], 'vlan-two'],
      ] as const) {
        const made = await app.request('POST', `/v4/node/instances/${node.id}/configs`, {
          body: { label: `cfg-${label}`, devices: {}, interfaces: [{ purpose: 'public' }, { purpose: 'vlan', label }] },
        });
        assert.equal(made.status, 200, JSON.stringify(made.body));
        await settle(app, 1_000);
      }
      assert.deepEqual(await listed(app, '/v4/networking/vlans', { '+order_by': 'created', '+order': 'desc' }, 'label'), [
        'vlan-two',
        'vlan-one',
      ]);
    });

    test("a config's interfaces by the label of a VLAN they join", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const node = await createEmptyNode(app);
      const configs: number[] = [];
      for (const vlan of ['ipam-vlan', 'other-vlan']) {
        const res = await app.request('POST', `/v4/node/instances/${node.id}/configs`, {
          body: {
            label: `cfg-${vlan}`,
            devices: {},
            interfaces: [{ purpose: 'public' }, { purpose: 'vlan', label: vlan, ipam_address: '10.0.0.1/24' }],
          },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        configs.push(res.body.id);
      }
      const url = `/v4/node/instances/${node.id}/configs`;
      assert.deepEqual(await listed(app, url, { interfaces: 'ipam-vlan' }), [configs[0]]);
      assert.deepEqual(await listed(app, url, { interfaces: { '+neq': 'ipam-vlan' } }), [configs[1]]);
      assert.deepEqual(await listed(app, url, { interfaces: 'no-such-vlan' }), []);
      const bad = await app.request('GET', url, { headers: { 'x-filter': '{"interfaces":{"+gt":"a"}}' } });
      assert.deepEqual([bad.status, bad.body.errors[0].field], [400, 'X-Filter']);
    });

    test('addresses by node_id, reserved and region; IPv6 ranges by region', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const a = await createNode(app, { region: 'us-east' });
      const b = await createNode(app, { region: 'us-central' });
      const url = '/v4/networking/ips?page=1&skip_ipv6_rdns=true';
      const ofA = await listed(app, url, { node_id: a.id }, 'address');
      assert.ok(ofA.length > 0);
      assert.ok(ofA.includes(a.ipv4[0]) && !ofA.includes(b.ipv4[0]));
      // Nothing is reserved apart from a node here.
      assert.deepEqual(await listed(app, url, { reserved: true }), []);
      const notReserved = await listed(app, url, { reserved: false, region: 'us-central' }, 'address');
      assert.ok(notReserved.includes(b.ipv4[0]) && !notReserved.includes(a.ipv4[0]));
      const ranges = await app.request('GET', '/v4/networking/ipv6/ranges', { headers: { 'x-filter': '{"region":"us-east"}' } });
      assert.equal(ranges.status, 200, JSON.stringify(ranges.body));
    });

    test('StackScripts by username, ordered by updated', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const first = await createScript(app, me, { label: 'first-script' });
      await settle(app, 1_000);
      const second = await createScript(app, me, { label: 'second-script' });
      await settle(app, 1_000);
      const changed = await app.request('PUT', `/v4/node/stackscripts/${first.id}`, { body: { description: 'changed' } });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const mine = { username: first.username, '+order_by': 'updated', '+order': 'desc' };
      assert.deepEqual(await listed(app, '/v4/node/stackscripts', mine), [first.id, second.id]);
      assert.deepEqual(await listed(app, '/v4/node/stackscripts', { username: 'nobody-here', mine: true }), []);
    });

    test("the orders the vendor's console asks for: domains by status and type, firewalls by status, tokens by expiry, users by email, apps by status", async (t) => {
      const app = await buildTestApp(t, { dialect });
      const domain = async (body: Record<string, unknown>) =>
        (await app.request('POST', '/v4/domains', { body: { soa_email: 'hostmaster@example.org', ...body } })).body.id;
      const active = await domain({ domain: 'a.example', type: 'master' });
      const disabled = await domain({ domain: 'b.example', type: 'master', status: 'disabled' });
      const slave = await domain({ domain: 'c.example', type: 'slave', master_ips: ['192.0.2.53'] });
      assert.deepEqual(await listed(app, '/v4/domains', { '+order_by': 'status' }), [active, slave, disabled]);
      assert.deepEqual(await listed(app, '/v4/domains', { '+order_by': 'type' }), [active, disabled, slave]);

      const firewall = async (label: string) =>
        (
          await app.request('POST', '/v4/networking/firewalls', {
            body: { label, rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' } },
          })
        ).body.id;
      const on = await firewall('stays-on');
      const off = await firewall('turned-off');
      assert.equal((await app.request('PUT', `/v4/networking/firewalls/${off}`, { body: { status: 'disabled' } })).status, 200);
      assert.deepEqual(await listed(app, '/v4/networking/firewalls', { '+order_by': 'status' }), [off, on]);

      const token = async (body: Record<string, unknown>) => (await app.request('POST', '/v4/profile/tokens', { body })).body.id;
      const soon = await token({ label: 'soon', scopes: '*', expiry: '2030-01-01T00:00:00' });
      const later = await token({ label: 'later', scopes: '*', expiry: '2040-01-01T00:00:00' });
      const never = await token({ label: 'never', scopes: '*' });
      const tokens = await listed(app, '/v4/profile/tokens', { '+order_by': 'expiry', '+order': 'desc' });
      assert.deepEqual(
        tokens.filter((id) => [soon, later, never].includes(id as number)),
        [never, later, soon],
      );
      const afterLater = await listed(app, '/v4/profile/tokens', { expiry: { '+gt': '2035-01-01T00:00:00' } });
      assert.deepEqual(
        afterLater.filter((id) => [soon, later, never].includes(id as number)),
        [later, never],
        'never is 2999',
      );

      const user = await app.request('POST', '/v4/account/users', {
        body: { username: 'zed-user', email: 'a-first@example.org', restricted: false },
      });
      assert.equal(user.status, 200, JSON.stringify(user.body));
      const users = await listed(app, '/v4/account/users', { '+order_by': 'email' }, 'email');
      assert.deepEqual(users, [...users].sort());
      assert.equal(users[0], 'a-first@example.org');
      const apps = await app.request('GET', '/v4/account/oauth-clients', { headers: { 'x-filter': '{"+order_by":"status"}' } });
      assert.equal(apps.status, 200, JSON.stringify(apps.body));
    });

    test('a field that is not filterable is refused as the live service words it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/images', { headers: { 'x-filter': '{"foo":"bar"}' } });
      assert.deepEqual(res.body, { errors: [{ field: 'X-Filter', reason: 'Cannot filter on foo' }] });
      assert.equal(res.status, 400);
    });
  });
}
