import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.ts';
import { type CatalogDataT, DEFAULT_CATALOG_PATH, loadCatalog } from '../../src/domain/catalog/catalog.ts';
import { startRuntime } from '../../src/runtime.ts';
import { buildTestApp, DIALECTS, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';

const defaults = (): CatalogDataT => JSON.parse(fs.readFileSync(DEFAULT_CATALOG_PATH, 'utf8'));

/** A small operator catalog: two regions of its own and a slice of the default offer. */
function operatorCatalog(): CatalogDataT {
  const base = defaults();
  const region = (id: string, label: string, n: number) => ({
    id,
    label,
    country: 'se',
    capabilities: ['Nodes', 'Cloud Firewall'],
    resolvers: { ipv4: `192.0.2.${n},192.0.2.${n + 1}`, ipv6: `2001:db8:f00::${n},2001:db8:f00::${n + 1}` },
    status: 'ok' as const,
    ipv4_pool: `10.${n}.0.0/16`,
    ipv6_prefix: `2001:db8:${n}00::/40`,
  });
  return {
    regions: [region('eu-north', 'Stockholm, SE', 1), { ...region('eu-north-2', 'Malmo, SE', 3), site_type: 'distributed' }],
    types: base.types.filter((t) => t.id === 'g6-nanode-1'),
    kernels: base.kernels.slice(0, 2),
    images: base.images.filter((i) => i.id === 'node/alpine3.20'),
  };
}

function writeCatalog(dir: string, name: string, data: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
  return file;
}

describe('catalog file checks', () => {
  test('the default catalog loads and offers what the docs promise', () => {
    const { data } = loadCatalog();
    assert.equal(data.regions.length, 14);
    assert.ok(
      data.regions.some((r) => !r.capabilities.includes('Vlans')),
      'some region lacks Vlans',
    );
    assert.ok(data.regions.some((r) => r.capabilities.includes('GPU Nodes')));
    assert.ok(data.types.some((t) => t.successor !== null));
    assert.ok(data.images.some((i) => i.deprecated));
    assert.ok(data.kernels.every((k) => k.id.startsWith('node/')));
    assert.deepEqual(
      data.images.filter((i) => i.recipe !== undefined).map((i) => [i.id, i.recipe]),
      [
        ['node/debian12', 'debian12'],
        ['node/busybox', 'busybox'],
      ],
    );
  });

  test('CUMULO_CATALOG names the file', (t) => {
    const file = writeCatalog(tempDir(t), 'mine.json', operatorCatalog());
    assert.equal(loadConfig({ CUMULO_CATALOG: file }).catalogPath, file);
    assert.equal(loadCatalog(file).region('eu-north')?.label, 'Stockholm, SE');
  });

  const broken: [string, (c: CatalogDataT) => unknown, RegExp][] = [
    ['not JSON', () => '{"regions": [', /cannot read the catalog .*broken\.json/],
    ['a missing list', (c) => ({ ...c, kernels: undefined }), /kernels/],
    ['an unknown node class', (c) => ({ ...c, types: [{ ...c.types[0], class: 'huge' }] }), /\/types\/0\/class/],
    ['a bad timestamp', (c) => ({ ...c, images: [{ ...c.images[0], created: 'yesterday' }] }), /\/images\/0\/created/],
    ['a duplicate id', (c) => ({ ...c, images: [...c.images, ...c.images] }), /images lists node\/alpine3\.20 twice/],
    [
      'an image naming an unknown recipe',
      (c) => ({ ...c, images: [{ ...c.images[0], recipe: 'gentoo' }] }),
      /image node\/alpine3\.20 names an unknown recipe gentoo \(known: busybox, debian12\)/,
    ],
    ['an unknown successor', (c) => ({ ...c, types: [{ ...c.types[0], successor: 'g9-none' }] }), /unknown successor g9-none/],
    [
      'overlapping pools',
      (c) => ({ ...c, regions: c.regions.map((r) => ({ ...r, ipv4_pool: '10.1.0.0/16' })) }),
      /eu-north-2 ipv4_pool 10\.1\.0\.0\/16 overlaps ipv4_pool of eu-north/,
    ],
    [
      'a pool with host bits',
      (c) => ({ ...c, regions: [{ ...c.regions[0], ipv6_prefix: '2001:db8::1/48' }] }),
      /ipv6_prefix 2001:db8::1\/48 is not an IPv6 network/,
    ],
    ['an IPv6 block as the IPv4 pool', (c) => ({ ...c, regions: [{ ...c.regions[0], ipv4_pool: '2001:db8::/48' }] }), /IPv4/],
  ];
  for (const [what, mutate, message] of broken) {
    test(`a catalog with ${what} is refused with the reason`, (t) => {
      const file = writeCatalog(tempDir(t), 'broken.json', mutate(operatorCatalog()));
      assert.throws(() => loadCatalog(file), message);
    });
  }
});

for (const dialect of DIALECTS) {
  describe(`operator catalog [${dialect}]`, () => {
    test('an operator file replaces the default offer', async (t) => {
      const file = writeCatalog(tempDir(t), 'operator.json', operatorCatalog());
      const app = await buildTestApp(t, { dialect, config: { catalogPath: file } });
      const regions = await app.request('GET', '/v4/regions', { token: null });
      assert.deepEqual(
        regions.body.data.map((r: { id: string }) => r.id),
        ['eu-north', 'eu-north-2'],
      );
      assert.equal((await app.request('GET', '/v4/regions/us-east')).status, 404);
      // A region's site type as the file says, `core` where it says none; clients filter by it.
      assert.deepEqual(
        regions.body.data.map((r: { label: string; site_type: string }) => [r.label, r.site_type]),
        [
          ['Stockholm, SE', 'core'],
          ['Malmo, SE', 'distributed'],
        ],
      );
      const edge = await app.request('GET', '/v4/regions', {
        token: null,
        headers: { 'x-filter': '{"site_type":"distributed"}' },
      });
      assert.deepEqual(
        edge.body.data.map((r: { id: string }) => r.id),
        ['eu-north-2'],
      );
      const types = await app.request('GET', '/v4/node/types');
      assert.deepEqual(
        types.body.data.map((x: { id: string }) => x.id),
        ['g6-nanode-1'],
      );
      const images = await app.request('GET', '/v4/images', { token: null });
      assert.deepEqual(
        images.body.data.map((x: { id: string }) => x.id),
        ['node/alpine3.20'],
      );
      assert.equal((await app.request('GET', '/v4/images/node/debian12')).status, 404);
    });

    test('an invalid catalog file stops startup with a clear message', async (t) => {
      const file = writeCatalog(tempDir(t), 'bad.json', { ...operatorCatalog(), regions: [] });
      await assert.rejects(buildTestApp(t, { dialect, config: { catalogPath: file } }), (err: Error) => {
        assert.match(err.message, /the catalog .*bad\.json is not valid: \/regions/);
        return true;
      });
    });

    test('restarting on the same database with another file swaps the offer and keeps private images', async (t) => {
      const dataDir = tempDir(t);
      const pgSchema = dialect === 'postgres' ? await freshPgSchema(t) : undefined;
      const start = async (catalogPath?: string) =>
        startRuntime(
          loadConfig(
            {},
            {
              dataDir,
              logLevel: 'silent',
              inProcessWorker: false,
              ...(catalogPath ? { catalogPath } : {}),
              ...(dialect === 'postgres' ? { databaseUrl: PG_URL } : {}),
            },
          ),
          { role: 'serve', logger: pino({ level: 'silent' }), ...(pgSchema ? { pgSchema } : {}) },
        );
      const first = await start();
      const db = first.ctx.db;
      assert.equal((await db.selectFrom('regions').select('id').execute()).length, 14);
      await db
        .insertInto('images')
        .values({
          id: 'private/kept',
          account_id: 1,
          label: 'kept',
          description: null,
          created: '2025-01-01T00:00:00',
          updated: '2025-01-01T00:00:00',
          created_by: 'someone',
          deprecated: 0,
          is_public: 0,
          size: 100,
          type: 'manual',
          expiry: null,
          eol: null,
          vendor: null,
          status: 'available',
          sort: 1_000_000,
        })
        .execute();
      await first.close();

      const second = await start(writeCatalog(tempDir(t), 'operator.json', operatorCatalog()));
      t.after(() => second.close());
      const rows = (table: 'regions' | 'node_types' | 'kernels') =>
        second.ctx.db
          .selectFrom(table)
          .select('id')
          .orderBy('sort')
          .execute()
          .then((r) => r.map((x) => x.id));
      assert.deepEqual(await rows('regions'), ['eu-north', 'eu-north-2']);
      assert.deepEqual(await rows('node_types'), ['g6-nanode-1']);
      assert.equal((await rows('kernels')).length, 2);
      const images = await second.ctx.db.selectFrom('images').select('id').orderBy('num').execute();
      assert.deepEqual(
        images.map((i) => i.id),
        ['private/kept', 'node/alpine3.20'],
      );
    });
  });
}
