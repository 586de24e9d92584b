import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { dig, digTransfer } from '../dns/helpers.ts';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, LOOPBACK_EGRESS, type TestApp } from '../helpers/app.ts';
import { needs } from '../helpers/system-tools.ts';
import { addRecord, createDomain, eventsOf } from './helpers.ts';

/** An installation with its nameserver on a free port of 127.0.0.1. */
async function servingApp(t: Parameters<typeof buildTestApp>[0], dialect: (typeof DIALECTS)[number]) {
  const app = await buildTestApp(t, { dialect, config: { ...LOOPBACK_EGRESS, dnsListen: '127.0.0.1:0' } });
  const address = app.runtime.nameserver?.address;
  assert.ok(address, 'the nameserver listens');
  return { app, port: Number(address.split(':').at(-1)) };
}

const answers = async (port: number, name: string, type: string) =>
  (await dig(port, name, type)).answer.map((r) => r.data).sort();

async function domainsNamed(app: TestApp, name: string) {
  const res = await app.request('GET', '/v4/domains', { headers: { 'x-filter': JSON.stringify({ domain: name }) } });
  return res.body.data;
}

for (const dialect of DIALECTS) {
  describe(`domains served by the nameserver, and imported by AXFR [${dialect}]`, () => {
    test(
      'what the API writes is answered at once; a TXT record made, found and deleted as certbot does',
      needs('dig'),
      async (t) => {
        const { app, port } = await servingApp(t, dialect);
        const domain = await createDomain(app, { domain: 'served.example' });
        const www = await addRecord(app, domain.id, { type: 'A', name: 'www', target: '192.0.2.10' });

        const first = await dig(port, 'www.served.example', 'A');
        assert.equal(first.status, 'NOERROR');
        assert.ok(first.flags.includes('aa'), 'authoritative');
        assert.deepEqual(
          first.answer.map((r) => r.data),
          ['192.0.2.10'],
        );
        const ns = await answers(port, 'served.example', 'NS');
        assert.deepEqual(ns, ['ns1.cumulo.local.', 'ns2.cumulo.local.']);

        const put = await app.request('PUT', `/v4/domains/${domain.id}/records/${www.id}`, { body: { target: '192.0.2.11' } });
        assert.equal(put.status, 200);
        assert.deepEqual(await answers(port, 'www.served.example', 'A'), ['192.0.2.11'], 'the change is answered at once');

        // The DNS-01 challenge: create the TXT record, find it by name and type, delete it.
        const challenge = await addRecord(app, domain.id, { type: 'TXT', name: '_acme-challenge', target: 'token-123' });
        assert.deepEqual(await answers(port, '_acme-challenge.served.example', 'TXT'), ['"token-123"']);
        const found = await app.request('GET', `/v4/domains/${domain.id}/records`, {
          headers: { 'x-filter': JSON.stringify({ name: '_acme-challenge', type: 'TXT' }) },
        });
        assert.deepEqual(
          found.body.data.map((r: { id: number }) => r.id),
          [challenge.id],
        );
        const gone = await app.request('DELETE', `/v4/domains/${domain.id}/records/${challenge.id}`);
        assert.equal(gone.status, 200);
        const after = await dig(port, '_acme-challenge.served.example', 'TXT');
        assert.equal(after.status, 'NXDOMAIN');

        const refused = await dig(port, 'elsewhere.example', 'A');
        assert.equal(refused.status, 'REFUSED', 'names outside every zone');
        await app.request('PUT', `/v4/domains/${domain.id}`, { body: { status: 'disabled' } });
        assert.equal((await dig(port, 'www.served.example', 'A')).status, 'REFUSED', 'a disabled domain is not served');
      },
    );

    test(
      'import: a zone transferred from another installation becomes a master domain with its records',
      needs('dig'),
      async (t) => {
        const source = await servingApp(t, dialect);
        const target = await buildTestApp(t, { dialect, config: LOOPBACK_EGRESS });
        const me = await admin(target);
        const zone = await createDomain(source.app, { domain: 'moving.example', axfr_ips: ['127.0.0.1'], ttl_sec: 3600 });
        await addRecord(source.app, zone.id, { type: 'A', name: 'www', target: '192.0.2.20' });
        await addRecord(source.app, zone.id, { type: 'MX', name: '', target: 'mail.moving.example', priority: 10 });
        await addRecord(source.app, zone.id, { type: 'TXT', name: '', target: 'v=spf1 -all' });
        assert.equal((await digTransfer(source.port, 'moving.example')).failed, false, 'dig may transfer it');

        const res = await target.request('POST', '/v4/domains/import', {
          body: { domain: 'Moving.Example', remote_nameserver: `127.0.0.1:${source.port}` },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(
          [res.body.domain, res.body.type, res.body.status, res.body.soa_email, res.body.ttl_sec],
          ['moving.example', 'master', 'active', 'hostmaster@example.org', 3600],
        );
        const records = await target.request('GET', `/v4/domains/${res.body.id}/records`);
        assert.deepEqual(
          records.body.data.map((r: { type: string; name: string; target: string }) => `${r.type} ${r.name} ${r.target}`).sort(),
          ['A www 192.0.2.20', 'MX  mail.moving.example', 'TXT  v=spf1 -all'],
        );
        assert.equal((await eventsOf(target, me.accountId, 'dns_zone_import')).length, 1);
      },
    );

    test('import refuses a transfer that fails, naming remote_nameserver, and makes nothing', async (t) => {
      const source = await servingApp(t, dialect);
      const target = await buildTestApp(t, { dialect, config: { ...LOOPBACK_EGRESS, dnsTimeoutMs: 200 } });
      await createDomain(source.app, { domain: 'closed.example' });
      const silent = net.createServer(() => {});
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      t.after(() => silent.close());
      const closedPort = await new Promise<number>((resolve) => {
        const probe = net.createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as net.AddressInfo;
          probe.close(() => resolve(port));
        });
      });
      const cases: [string, string][] = [
        ['closed.example', `127.0.0.1:${source.port}`], // not in axfr_ips: REFUSED
        ['unknown.example', `127.0.0.1:${source.port}`], // no such zone there
        ['closed.example', `127.0.0.1:${closedPort}`], // nothing listening
        ['closed.example', `127.0.0.1:${(silent.address() as net.AddressInfo).port}`], // never answers
        ['closed.example', 'not a host'],
        ['closed.example', '127.0.0.1:99999'],
      ];
      for (const [domain, remote] of cases) {
        const res = await target.request('POST', '/v4/domains/import', { body: { domain, remote_nameserver: remote } });
        assert.equal(res.status, 400, `${domain} from ${remote}`);
        assert.deepEqual(
          res.body.errors.map((e: { field: string }) => e.field),
          ['remote_nameserver'],
          JSON.stringify(res.body),
        );
      }
      const badName = await target.request('POST', '/v4/domains/import', {
        body: { domain: 'no_such..name', remote_nameserver: `127.0.0.1:${source.port}` },
      });
      assert.deepEqual([badName.status, badName.body.errors[0].field], [400, 'domain']);
      assert.deepEqual(await domainsNamed(target, 'closed.example'), [], 'nothing was made');
      const missing = await target.request('POST', '/v4/domains/import', { body: { domain: 'closed.example' } });
      assert.deepEqual([missing.status, missing.body.errors[0].field], [400, 'remote_nameserver']);
    });
  });
}
