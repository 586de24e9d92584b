import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Principal } from '../../src/domain/account/principal.ts';
import { importDomain, mailboxAddress } from '../../src/domain/domains/domain-import.service.ts';
import { databaseZoneSource } from '../../src/domain/domains/zone-source.ts';
import { ApiError } from '../../src/errors.ts';
import { admin } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { addRecord, createDomain, eventsOf, renderedZone } from './helpers.ts';

async function principalOf(app: TestApp): Promise<Principal> {
  const me = await admin(app);
  return { accountId: me.accountId, userId: me.userId, username: me.username, restricted: false, scopes: '*', tokenId: 0 };
}

/** The records as the API lists them, without ids and times. */
async function recordsOf(app: TestApp, domainId: number) {
  const res = await app.request('GET', `/v4/domains/${domainId}/records`);
  return res.body.data.map(({ id, created, updated, ...rest }: Record<string, unknown>) => rest);
}

for (const dialect of DIALECTS) {
  describe(`a transferred zone made a domain (for the import) [${dialect}]`, () => {
    test('the zone of a domain, deleted and imported again, gives back its records and settings', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const domain = await createDomain(app, {
        domain: 'round.example',
        soa_email: 'first.last@example.org',
        ttl_sec: 3600,
        refresh_sec: 7200,
        retry_sec: 300,
        expire_sec: 604800,
      });
      for (const record of [
        { type: 'A', name: 'www', target: '192.0.2.1', ttl_sec: 300 },
        { type: 'AAAA', target: '2001:db8::1' },
        { type: 'NS', name: 'sub', target: 'ns.example.org' },
        { type: 'MX', target: 'mail.example.org', priority: 10 },
        { type: 'MX', name: 'nomail', target: '' },
        { type: 'CNAME', name: 'docs', target: 'pages.example.org' },
        { type: 'TXT', name: 'long', target: 'x'.repeat(600) },
        { type: 'SRV', service: 'sip', protocol: 'udp', priority: 1, weight: 2, port: 5060, target: 'sip.example.org' },
        { type: 'PTR', name: '9', target: 'host.example.org' },
        { type: 'CAA', tag: 'issue', target: 'letsencrypt.org' },
      ]) {
        await addRecord(app, domain.id, record);
      }
      const before = await recordsOf(app, domain.id);
      const zone = await databaseZoneSource(app.runtime.ctx).zoneFor('round.example');
      assert.ok(zone);
      assert.equal((await app.request('DELETE', `/v4/domains/${domain.id}`)).status, 200);

      const imported = await importDomain(app.runtime.ctx, await principalOf(app), zone, 'remote_nameserver');
      // The same domain again, made anew: only its id and times are its own.
      const anew = (d: Record<string, unknown>) => ({ ...d, id: 0, created: '', updated: '' });
      assert.deepEqual(anew(imported), anew(domain));
      const after = await recordsOf(app, imported.id);
      const explicit = before.map((r: { ttl_sec: number }) => ({ ...r, ttl_sec: r.ttl_sec === 0 ? 3600 : r.ttl_sec }));
      assert.deepEqual(after, explicit, 'the same records, each with the TTL it was served with');
      const [event] = await eventsOf(app, me.accountId, 'dns_zone_import');
      assert.deepEqual([event?.entity_id, event?.entity_label], [imported.id, 'round.example']);
      assert.ok((await renderedZone(app, imported.id)).length > 0, 'rendered like any change');

      const again = await importDomain(app.runtime.ctx, await principalOf(app), zone, 'remote_nameserver').catch((e) => e);
      assert.ok(again instanceof ApiError);
      assert.deepEqual([again.status, again.errors[0]?.field], [400, 'domain'], 'a taken name is about the domain');
      const noSoa = { ...zone, origin: 'nosoa.example', records: zone.records.filter((r) => r.type !== 'SOA') };
      const refused = await importDomain(app.runtime.ctx, await principalOf(app), noSoa, 'remote_nameserver').catch((e) => e);
      assert.deepEqual([refused.status, refused.errors[0]?.field], [400, 'remote_nameserver']);
      assert.equal((await app.request('GET', '/v4/domains')).body.results, 1, 'a refused import creates nothing');
    });

    test('an SOA mailbox back to an address', () => {
      assert.equal(mailboxAddress('hostmaster.example.com'), 'hostmaster@example.com');
      assert.equal(mailboxAddress('first\\.last.example.com'), 'first.last@example.com');
      assert.equal(mailboxAddress('nodot'), '');
    });
  });
}
