import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { startDnsServer } from '../helpers/dns-server.ts';
import { createEmptyNode } from '../nodes/helpers.ts';
import { addRecord, createDomain } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`reverse DNS checked against Cumulo's own zones [${dialect}]`, () => {
    test('a name in an active domain is checked against its records, without asking the resolvers', async (t) => {
      const dns = await startDnsServer(t);
      dns.silent = true;
      const app = await buildTestApp(t, { dialect, config: { dnsResolvers: [dns.address], dnsTimeoutMs: 250 } });
      const node = await createEmptyNode(app);
      const address = node.ipv4[0] as string;
      const domain = await createDomain(app, { domain: 'cloud.test' });
      await addRecord(app, domain.id, { type: 'A', name: 'web', target: address });
      await addRecord(app, domain.id, { type: 'CNAME', name: 'alias', target: 'web.cloud.test' });
      await addRecord(app, domain.id, { type: 'A', name: 'other', target: '192.0.2.99' });
      const setRdns = (rdns: string) => app.request('PUT', `/v4/networking/ips/${address}`, { body: { rdns } });

      const direct = await setRdns('web.cloud.test');
      assert.equal(direct.status, 200, JSON.stringify(direct.body));
      assert.equal(direct.body.rdns, 'web.cloud.test');
      assert.equal((await setRdns('alias.cloud.test')).status, 200, 'through a CNAME inside the zone');
      const elsewhere = await setRdns('other.cloud.test');
      assert.equal(elsewhere.status, 400);
      assert.match(elsewhere.body.errors[0].reason, /points at 192\.0\.2\.99/);
      const missing = await setRdns('nothing.cloud.test');
      assert.deepEqual([missing.status, missing.body.errors[0].field], [400, 'rdns']);
      assert.equal(dns.queries, 0, "names in Cumulo's zones never reach the resolver");

      // A disabled domain is not one of Cumulo's served zones: the (silent) resolver is asked.
      await app.request('PUT', `/v4/domains/${domain.id}`, { body: { status: 'disabled' } });
      const disabled = await setRdns('web.cloud.test');
      assert.equal(disabled.status, 400);
      assert.match(disabled.body.errors[0].reason, /no answer within 250 ms/);
      assert.ok(dns.queries > 0);
      assert.equal((await app.request('GET', `/v4/networking/ips/${address}`)).body.rdns, 'alias.cloud.test');
    });
  });
}
