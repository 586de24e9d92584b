import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { startDnsServer } from '../helpers/dns-server.ts';
import { createEmptyNode, eventsOf } from '../nodes/helpers.ts';

/** The full, upper-case spelling of an IPv6 address, as a zone file may hold it. */
function expand(address: string): string {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups
    .map((g) => g.padStart(4, '0'))
    .join(':')
    .toUpperCase();
}

const dashed = (ipv4: string) => ipv4.replaceAll('.', '-');

/** The two routes that set an address's reverse DNS name. */
const ROUTES = [
  { name: 'networking', url: (_nodeId: number, address: string) => `/v4/networking/ips/${encodeURIComponent(address)}` },
  {
    name: 'node',
    url: (nodeId: number, address: string) => `/v4/node/instances/${nodeId}/ips/${encodeURIComponent(address)}`,
  },
] as const;

async function rdnsOf(app: TestApp, address: string): Promise<string | null> {
  const res = await app.request('GET', `/v4/networking/ips/${encodeURIComponent(address)}`);
  assert.equal(res.status, 200);
  return res.body.rdns;
}

test('config: CUMULO_HOSTNAME, CUMULO_DNS_RESOLVERS and CUMULO_DNS_TIMEOUT_MS, their defaults and refusals', () => {
  const defaults = loadConfig({});
  assert.deepEqual([defaults.hostname, defaults.dnsResolvers, defaults.dnsTimeoutMs], ['cumulo.local', undefined, 2000]);
  assert.equal(loadConfig({ CUMULO_PUBLIC_URL: 'https://Cloud.Example.org:8443/api' }).hostname, 'cloud.example.org');
  for (const url of ['http://192.0.2.10:8080', 'http://[2001:db8::1]', 'http://localhost:8080']) {
    assert.equal(loadConfig({ CUMULO_PUBLIC_URL: url }).hostname, 'cumulo.local', url);
  }
  assert.equal(loadConfig({}, { publicUrl: 'https://api.example.net' }).hostname, 'api.example.net', 'an override too');
  const set = loadConfig({
    CUMULO_PUBLIC_URL: 'https://cloud.example.org',
    CUMULO_HOSTNAME: 'Cumulo.Example.COM.',
    CUMULO_DNS_RESOLVERS: '192.0.2.53, 192.0.2.54:5353,[2001:db8::53]:53, 2001:db8::54',
    CUMULO_DNS_TIMEOUT_MS: '500',
  });
  assert.deepEqual(
    [set.hostname, set.dnsResolvers, set.dnsTimeoutMs],
    ['cumulo.example.com', ['192.0.2.53', '192.0.2.54:5353', '[2001:db8::53]:53', '2001:db8::54'], 500],
  );

  for (const hostname of ['localhost', '192.0.2.1', 'under_score.example.com', '-lead.example.com', 'a..example.com']) {
    assert.throws(() => loadConfig({ CUMULO_HOSTNAME: hostname }), /CUMULO_HOSTNAME/, hostname);
  }
  for (const servers of ['dns.example.com', '192.0.2.1:70000', '192.0.2.1:0', '[192.0.2.1]:53', '192.0.2.1, 999.1.1.1']) {
    assert.throws(() => loadConfig({ CUMULO_DNS_RESOLVERS: servers }), /CUMULO_DNS_RESOLVERS/, servers);
  }
  for (const ms of ['0', 'soon', '1.5', '600000']) {
    assert.throws(() => loadConfig({ CUMULO_DNS_TIMEOUT_MS: ms }), ConfigError, ms);
  }
});

for (const dialect of DIALECTS) {
  describe(`rDNS and forward DNS [${dialect}]`, () => {
    for (const route of ROUTES) {
      test(`${route.name} route: a name is taken only when its A records hold the address; refusals change nothing`, async (t) => {
        const dns = await startDnsServer(t);
        const app = await buildTestApp(t, {
          dialect,
          config: { dnsResolvers: [dns.address], dnsTimeoutMs: 250, hostname: 'cloud.example.net' },
        });
        const me = await admin(app);
        const node = await createEmptyNode(app);
        const [public4] = node.ipv4;
        const put = (rdns: unknown) => app.request('PUT', route.url(node.id, public4), { body: { rdns } });
        const updates = async () => (await eventsOf(app, me.accountId, 'ipaddress_update')).length;

        dns.set('www.example.com', ['198.51.100.9', public4]);
        const named = await put('WWW.Example.COM.');
        assert.equal(named.status, 200, JSON.stringify(named.body));
        assert.equal(named.body.rdns, 'www.example.com', 'stored in lower case, without the trailing dot');
        assert.equal(await rdnsOf(app, public4), 'www.example.com');
        const nodeView = await app.request('GET', `/v4/node/instances/${node.id}/ips`);
        assert.equal(nodeView.body.ipv4.public[0].rdns, 'www.example.com');
        assert.equal(await updates(), 1);

        dns.set('elsewhere.example.com', ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']);
        dns.set('v6only.example.com', ['2001:db8::1']);
        for (const [name, reason] of [
          ['missing.example.com', /missing\.example\.com does not resolve/],
          ['elsewhere.example.com', /points at 198\.51\.100\.1, 198\.51\.100\.2, 198\.51\.100\.3 and 1 more \(A\), not at/],
          ['v6only.example.com', /has no A record/],
        ] as const) {
          const refused = await put(name);
          assert.equal(refused.status, 400, `${name}: ${JSON.stringify(refused.body)}`);
          assert.equal(refused.body.errors[0].field, 'rdns');
          assert.match(refused.body.errors[0].reason, reason);
          assert.equal(await rdnsOf(app, public4), 'www.example.com', `${name} changed nothing`);
        }

        dns.set('later.example.com', [public4]);
        dns.silent = true;
        const unanswered = await put('later.example.com');
        assert.equal(unanswered.status, 400, JSON.stringify(unanswered.body));
        assert.equal(unanswered.body.errors[0].field, 'rdns');
        assert.match(unanswered.body.errors[0].reason, /DNS lookup of later\.example\.com got no answer within 250 ms/);
        assert.equal(await rdnsOf(app, public4), 'www.example.com');
        assert.equal(await updates(), 1, 'refusals record no event');

        const asked = dns.queries;
        const reset = await put(null);
        assert.equal(reset.status, 200, 'null needs no lookup: it works while the resolver is silent');
        assert.equal(reset.body.rdns, `${dashed(public4)}.ip.cloud.example.net`);
        assert.equal(await rdnsOf(app, public4), reset.body.rdns);
        const untouched = await app.request('PUT', route.url(node.id, public4), { body: {} });
        assert.deepEqual([untouched.status, untouched.body.rdns], [200, reset.body.rdns]);
        assert.equal(dns.queries, asked, 'neither null nor a body without rdns asks DNS');
        assert.equal(await updates(), 2);
      });

      test(`${route.name} route: a SLAAC address is checked against AAAA records`, async (t) => {
        const dns = await startDnsServer(t);
        const app = await buildTestApp(t, { dialect, config: { dnsResolvers: [dns.address] } });
        const node = await createEmptyNode(app);
        const slaac = node.ipv6.replace('/128', '');
        const put = (rdns: unknown) => app.request('PUT', route.url(node.id, slaac), { body: { rdns } });

        dns.set('v4only.example.com', [node.ipv4[0]]);
        dns.set('other6.example.com', ['2001:db8::5']);
        for (const [name, reason] of [
          ['v4only.example.com', /has no AAAA record/],
          ['other6.example.com', /points at 2001:db8::5 \(AAAA\), not at/],
        ] as const) {
          const refused = await put(name);
          assert.equal(refused.status, 400, `${name}: ${JSON.stringify(refused.body)}`);
          assert.equal(refused.body.errors[0].field, 'rdns');
          assert.match(refused.body.errors[0].reason, reason);
        }
        assert.equal(await rdnsOf(app, slaac), null);

        dns.set('v6.example.com', [expand(slaac)]);
        const named = await put('v6.example.com');
        assert.equal(named.status, 200, JSON.stringify(named.body));
        assert.deepEqual([named.body.address, named.body.rdns], [slaac, 'v6.example.com']);
        assert.equal(await rdnsOf(app, slaac), 'v6.example.com');
        const reset = await put(null);
        assert.deepEqual([reset.status, reset.body.rdns], [200, null], 'an IPv6 address has no default name');
      });
    }

    test("a public IPv4 address's default name is on the installation's host name: cumulo.local, or CUMULO_PUBLIC_URL's host", async (t) => {
      for (const [config, hostname] of [
        [{}, 'cumulo.local'],
        [{ publicUrl: 'https://cloud.example.org' }, 'cloud.example.org'],
      ] as const) {
        const app = await buildTestApp(t, { dialect, config });
        const node = await createEmptyNode(app);
        const [public4] = node.ipv4;
        const expected = `${dashed(public4)}.ip.${hostname}`;
        const list = await app.request('GET', '/v4/networking/ips');
        const listed = list.body.data.find((a: { address: string }) => a.address === public4);
        assert.equal(listed.rdns, expected, JSON.stringify(config));
        assert.equal(await rdnsOf(app, public4), expected);
        const view = await app.request('GET', `/v4/node/instances/${node.id}/ips`);
        assert.equal(view.body.ipv4.public[0].rdns, expected);
      }
    });
  });
}
