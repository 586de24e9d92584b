import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCatalog } from '../../src/domain/catalog/catalog.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { xFilter } from './helpers.ts';

const catalog = loadCatalog();
const ids = (body: { data: { id: string }[] }) => body.data.map((k) => k.id);

for (const dialect of DIALECTS) {
  describe(`kernels [${dialect}]`, () => {
    test('the list is public and paginated, in catalog order', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/node/kernels', { token: null });
      assert.equal(res.status, 200);
      assert.equal(res.body.results, catalog.data.kernels.length);
      assert.equal(res.body.pages, 1);
      assert.deepEqual(
        ids(res.body),
        catalog.data.kernels.map((k) => k.id),
      );
      const small = await app.request('GET', '/v4/node/kernels?page_size=25&page=2');
      assert.equal(small.status, 200);
      assert.equal(small.body.page, 2);
      assert.deepEqual(small.body.data, []);
      assert.equal((await app.request('GET', '/v4/node/kernels?page_size=10')).status, 400);
    });

    test('view answers both the raw and the encoded slash in the id', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const want = {
        id: 'node/latest-64bit',
        label: 'Latest 64-bit (6.2.9-x86_64)',
        version: '6.2.9',
        kvm: true,
        xen: true,
        architecture: 'x86_64',
        pvops: true,
        deprecated: false,
        built: '2023-03-30T17:30:00',
      };
      for (const path of ['node/latest-64bit', 'node%2Flatest-64bit', 'node%2flatest-64bit', 'node/latest-64bit/']) {
        const res = await app.request('GET', `/v4/node/kernels/${path}`, { token: null });
        assert.equal(res.status, 200, path);
        assert.deepEqual(res.body, want);
      }
      const versioned = await app.request('GET', '/v4/node/kernels/node/6.2.9-x86_64');
      assert.equal(versioned.body.version, '6.2.9');
    });

    test('an unknown kernel is a 404', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const path of ['node/latest-128bit', 'grub2', 'node%2Fnope', 'node/grub2/extra']) {
        const res = await app.request('GET', `/v4/node/kernels/${path}`);
        assert.equal(res.status, 404, path);
        assert.equal(typeof res.body.errors[0].reason, 'string');
      }
    });

    test('X-Filter on booleans, architecture, version and label', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const i386 = await app.request('GET', '/v4/node/kernels', xFilter({ architecture: 'i386' }));
      assert.deepEqual(
        ids(i386.body),
        catalog.data.kernels.filter((k) => k.architecture === 'i386').map((k) => k.id),
      );
      const current = await app.request('GET', '/v4/node/kernels', xFilter({ kvm: true, deprecated: false }));
      assert.deepEqual(
        ids(current.body),
        catalog.data.kernels.filter((k) => k.kvm && !k.deprecated).map((k) => k.id),
      );
      const deprecated = await app.request('GET', '/v4/node/kernels', xFilter({ deprecated: true }));
      assert.ok(deprecated.body.results > 0);
      assert.ok(deprecated.body.data.every((k: { deprecated: boolean }) => k.deprecated));
      const xenOnly = await app.request('GET', '/v4/node/kernels', xFilter({ xen: true, kvm: { '+neq': true } }));
      assert.ok(xenOnly.body.data.every((k: { xen: boolean; kvm: boolean }) => k.xen && !k.kvm));
      const sixes = await app.request('GET', '/v4/node/kernels', xFilter({ version: { '+contains': '6.' }, pvops: true }));
      assert.deepEqual(
        ids(sixes.body),
        catalog.data.kernels.filter((k) => k.version.includes('6.') && k.pvops).map((k) => k.id),
      );
      const grub = (order: string) =>
        app.request(
          'GET',
          '/v4/node/kernels',
          xFilter({ label: { '+contains': 'grub' }, '+order_by': 'label', '+order': order }),
        );
      const asc = ids((await grub('asc')).body);
      // Which of the two comes first depends on the database's collation; only the reversal is certain.
      assert.deepEqual([...asc].sort(), ['node/grub-legacy', 'node/grub2']);
      assert.deepEqual(ids((await grub('desc')).body), [...asc].reverse());
    });

    test('X-Filter on a field that is not filterable is refused and names it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/node/kernels', xFilter({ built: '2023-03-30T17:30:00' }));
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].field, 'X-Filter');
      assert.match(res.body.errors[0].reason, /built/);
      const notBool = await app.request('GET', '/v4/node/kernels', xFilter({ kvm: 'yes' }));
      assert.equal(notBool.status, 400);
      assert.match(notBool.body.errors[0].reason, /kvm/);
    });
  });
}
