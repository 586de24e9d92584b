import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCatalog } from '../../src/domain/catalog/catalog.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { xFilter } from './helpers.ts';

const catalog = loadCatalog();
const ids = (body: { data: { id: string }[] }) => body.data.map((t) => t.id);

for (const dialect of DIALECTS) {
  describe(`node types [${dialect}]`, () => {
    test('the list is public, paginated and in catalog order', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/node/types', { token: null });
      assert.equal(res.status, 200);
      assert.equal(res.body.results, catalog.data.types.length);
      assert.equal(res.body.page, 1);
      assert.equal(res.body.pages, 1);
      assert.deepEqual(
        ids(res.body),
        catalog.data.types.map((t) => t.id),
      );
      assert.deepEqual(Object.keys(res.body.data[0]).sort(), [
        'addons',
        'class',
        'disk',
        'gpus',
        'id',
        'label',
        'memory',
        'network_out',
        'price',
        'region_prices',
        'successor',
        'transfer',
        'vcpus',
      ]);
    });

    test('view returns the type with its figures, prices and successor', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const nanode = await app.request('GET', '/v4/node/types/g6-nanode-1', { token: null });
      assert.equal(nanode.status, 200);
      assert.deepEqual(nanode.body, {
        id: 'g6-nanode-1',
        label: 'Nanode 1GB',
        disk: 25600,
        class: 'nanode',
        price: { hourly: 0.0075, monthly: 5 },
        region_prices: [],
        addons: { backups: { price: { hourly: 0.003, monthly: 2 }, region_prices: [] } },
        network_out: 1000,
        memory: 1024,
        successor: null,
        transfer: 1000,
        vcpus: 1,
        gpus: 0,
      });
      const gpu = await app.request('GET', '/v4/node/types/g1-gpu-rtx6000-2');
      assert.equal(gpu.body.gpus, 2);
      assert.equal(gpu.body.class, 'gpu');
      const old = await app.request('GET', '/v4/node/types/g5-standard-1');
      assert.equal(old.body.successor, 'g6-standard-1');
    });

    test('every type renders exactly as the catalog file states it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/node/types');
      for (const [i, want] of catalog.data.types.entries()) {
        const got = res.body.data[i];
        assert.equal(got.id, want.id);
        assert.deepEqual(got.price, want.price, want.id);
        // Every region charges the type's own price: no prices by region.
        assert.deepEqual(got.region_prices, [], want.id);
        assert.deepEqual(got.addons, { backups: { ...want.addons.backups, region_prices: [] } }, want.id);
        assert.equal(got.memory, want.memory);
        assert.equal(got.successor, want.successor);
      }
    });

    test('an unknown type is a 404 in the envelope', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/node/types/g6-standard-3');
      assert.equal(res.status, 404);
      assert.equal(typeof res.body.errors[0].reason, 'string');
    });

    test('page and page_size cut the list; out-of-range values are refused', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const total = catalog.data.types.length;
      const first = await app.request('GET', '/v4/node/types?page_size=25');
      assert.equal(first.body.pages, Math.ceil(total / 25));
      assert.equal(first.body.results, total);
      assert.equal(first.body.data.length, 25);
      const second = await app.request('GET', '/v4/node/types?page=2&page_size=25');
      assert.equal(second.body.page, 2);
      assert.equal(second.body.data.length, total - 25);
      assert.deepEqual([...ids(first.body), ...ids(second.body)], ids((await app.request('GET', '/v4/node/types')).body));
      const past = await app.request('GET', '/v4/node/types?page=9&page_size=25');
      assert.equal(past.status, 200);
      assert.deepEqual(past.body.data, []);
      for (const query of ['page_size=24', 'page_size=501', 'page=0', 'page=x']) {
        const bad = await app.request('GET', `/v4/node/types?${query}`);
        assert.equal(bad.status, 400, query);
        assert.equal(bad.body.errors[0].field, query.split('=')[0]);
      }
    });

    test('X-Filter: +gte on memory, +or of classes, exact gpus', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const big = await app.request('GET', '/v4/node/types', xFilter({ memory: { '+gte': 131072 } }));
      assert.equal(big.status, 200);
      const wantBig = catalog.data.types.filter((t) => t.memory >= 131072).map((t) => t.id);
      assert.deepEqual(ids(big.body), wantBig);
      assert.equal(big.body.results, wantBig.length);

      const classes = await app.request('GET', '/v4/node/types', xFilter({ '+or': [{ class: 'nanode' }, { class: 'highmem' }] }));
      assert.deepEqual(
        ids(classes.body),
        catalog.data.types.filter((t) => t.class === 'nanode' || t.class === 'highmem').map((t) => t.id),
      );
      const fieldOr = await app.request('GET', '/v4/node/types', xFilter({ class: { '+or': ['nanode', 'highmem'] } }));
      assert.deepEqual(ids(fieldOr.body), ids(classes.body));

      const gpus = await app.request('GET', '/v4/node/types', xFilter({ gpus: 4, vcpus: { '+lt': 32 } }));
      assert.deepEqual(ids(gpus.body), ['g1-gpu-rtx6000-4']);
    });

    test('X-Filter: +contains on label and +order_by/+order', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const dedicated = await app.request('GET', '/v4/node/types', xFilter({ label: { '+contains': 'dedicated' } }));
      assert.deepEqual(
        ids(dedicated.body),
        catalog.data.types.filter((t) => t.label.toLowerCase().includes('dedicated')).map((t) => t.id),
      );
      assert.ok(dedicated.body.results >= 9);

      const byMemory = await app.request(
        'GET',
        '/v4/node/types',
        xFilter({ class: 'standard', '+order_by': 'memory', '+order': 'desc' }),
      );
      const memories = byMemory.body.data.map((t: { memory: number }) => t.memory);
      assert.deepEqual(
        memories,
        [...memories].sort((a, b) => b - a),
      );
      assert.equal(byMemory.body.data[0].id, 'g6-standard-32');

      const byDisk = await app.request('GET', '/v4/node/types', xFilter({ '+order_by': 'disk' }));
      assert.equal(byDisk.body.data[0].disk, Math.min(...catalog.data.types.map((t) => t.disk)));
    });

    test('X-Filter on a field that is not filterable is refused and names it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const field of ['price', 'successor', 'id']) {
        const res = await app.request('GET', '/v4/node/types', xFilter({ [field]: 1 }));
        assert.equal(res.status, 400, field);
        assert.equal(res.body.errors[0].field, 'X-Filter');
        assert.match(res.body.errors[0].reason, new RegExp(`\\b${field}\\b`));
      }
      const badOrder = await app.request('GET', '/v4/node/types', xFilter({ '+order_by': 'price' }));
      assert.equal(badOrder.status, 400);
      assert.match(badOrder.body.errors[0].reason, /price/);
      const badType = await app.request('GET', '/v4/node/types', xFilter({ memory: 'lots' }));
      assert.equal(badType.status, 400);
    });
  });
}
