import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { databaseZoneSource } from '../../src/domain/domains/zone-source.ts';
import { newAccount } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { addRecord, createDomain } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(`the nameserver's zone source [${dialect}]`, () => {
    test('the longest active master domain holding a name, of any account, as it is now', async (t) => {
      const app = await buildTestApp(t, { dialect, config: { dnsNameservers: ['ns.dns.example.net'] } });
      const source = databaseZoneSource(app.runtime.ctx);
      const other = await newAccount(app);
      const parent = await createDomain(app, { domain: 'served.example', axfr_ips: ['192.0.2.99'] });
      const child = await createDomain(app, { domain: 'sub.served.example' }, other.token);
      await addRecord(app, child.id, { type: 'A', name: 'www', target: '192.0.2.1' }, other.token);

      const zone = await source.zoneFor('WWW.Sub.Served.Example.');
      assert.equal(zone?.origin, 'sub.served.example');
      assert.deepEqual(
        zone?.records.map((r) => [r.name, r.type]),
        [
          ['sub.served.example', 'SOA'],
          ['sub.served.example', 'NS'],
          ['www.sub.served.example', 'A'],
        ],
      );
      const soa = zone?.records[0];
      assert.ok(soa?.type === 'SOA');
      assert.equal(soa.data.mname, 'ns.dns.example.net');
      const row = await app.runtime.ctx.db
        .selectFrom('domains')
        .select('serial')
        .where('id', '=', child.id)
        .executeTakeFirstOrThrow();
      assert.equal(soa.data.serial, row.serial, 'the current serial, no render needed');

      assert.equal((await source.zoneFor('other.served.example'))?.origin, 'served.example');
      assert.deepEqual((await source.zoneFor('served.example'))?.axfrIps, ['192.0.2.99']);
      assert.equal(await source.zoneFor('example'), null);
      assert.equal(await source.zoneFor('unserved.example'), null);
      assert.equal(await source.zoneFor(''), null);

      await app.request('PUT', `/v4/domains/${child.id}`, { token: other.token, body: { status: 'disabled' } });
      assert.equal((await source.zoneFor('www.sub.served.example'))?.origin, 'served.example', 'a disabled domain is not served');
      await app.request('PUT', `/v4/domains/${parent.id}`, { body: { type: 'slave', master_ips: ['192.0.2.53'] } });
      assert.equal(await source.zoneFor('www.sub.served.example'), null, 'nor is a slave');
    });
  });
}
