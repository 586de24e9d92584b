import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Zone } from '../../src/dns/zone.ts';
import type { DomainRow } from '../../src/domain/domains/domain.repository.ts';
import { cachedZone, forgetCachedZones } from '../../src/domain/domains/zone-cache.ts';
import { databaseZoneSource } from '../../src/domain/domains/zone-source.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { operatorApp } from '../operator/helpers.ts';
import { addRecord, createDomain } from './helpers.ts';

/** The targets of a zone's A records named `name` (relative), as the nameserver would answer them. */
async function targets(app: TestApp, zone: string, name: string): Promise<string[]> {
  const found = await databaseZoneSource(app.runtime.ctx).zoneFor(`${name}.${zone}`);
  assert.ok(found, `${zone} is served`);
  return found.records
    .filter((r) => r.type === 'A' && r.name === `${name}.${zone}`)
    .map((r) => String(r.data))
    .sort();
}

test('a cached zone is built once while its domain row is unchanged, again when it changes or is forgotten', async () => {
  const db = {};
  const row = { id: 1, serial: 2026010100, updated: '2026-01-01T00:00:00' } as unknown as DomainRow;
  let builds = 0;
  const build = async () => {
    builds += 1;
    return { origin: `zone-${builds}` } as unknown as Zone;
  };
  assert.equal((await cachedZone(db, row, build))?.origin, 'zone-1');
  assert.equal((await cachedZone(db, { ...row }, build))?.origin, 'zone-1', 'the same row: the same zone');
  assert.equal((await cachedZone(db, { ...row, serial: 2026010101 }, build))?.origin, 'zone-2', 'a new serial: built again');
  forgetCachedZones(db);
  assert.equal((await cachedZone(db, { ...row, serial: 2026010101 }, build))?.origin, 'zone-3', 'forgotten: built again');
  assert.equal((await cachedZone({}, { ...row, serial: 2026010101 }, build))?.origin, 'zone-4', 'another database: its own');
});

for (const dialect of DIALECTS) {
  describe(`served zones from the cache [${dialect}]`, () => {
    test('every record change is answered at once', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const domain = await createDomain(app, { domain: 'cached.example' });
      assert.deepEqual(await targets(app, 'cached.example', 'www'), []);
      const first = await addRecord(app, domain.id, { type: 'A', name: 'www', target: '192.0.2.1' });
      assert.deepEqual(await targets(app, 'cached.example', 'www'), ['192.0.2.1']);
      await addRecord(app, domain.id, { type: 'A', name: 'www', target: '192.0.2.2' });
      assert.deepEqual(await targets(app, 'cached.example', 'www'), ['192.0.2.1', '192.0.2.2']);
      const changed = await app.request('PUT', `/v4/domains/${domain.id}/records/${first.id}`, { body: { target: '192.0.2.3' } });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.deepEqual(await targets(app, 'cached.example', 'www'), ['192.0.2.2', '192.0.2.3']);
      assert.equal((await app.request('DELETE', `/v4/domains/${domain.id}/records/${first.id}`)).status, 200);
      assert.deepEqual(await targets(app, 'cached.example', 'www'), ['192.0.2.2']);
    });

    test('after a reset, a seeded run that makes the same domain with another record is answered with the new one', async (t) => {
      const app = await operatorApp(t, dialect, { seed: 7 });
      const run = async (target: string) => {
        const domain = await createDomain(app, { domain: 'replayed.example' });
        await addRecord(app, domain.id, { type: 'A', name: 'www', target });
        return targets(app, 'replayed.example', 'www');
      };
      assert.deepEqual(await run('192.0.2.10'), ['192.0.2.10']);
      assert.equal((await app.admin('POST', '/admin/reset')).status, 200);
      assert.deepEqual(await run('192.0.2.20'), ['192.0.2.20']);
    });
  });
}
