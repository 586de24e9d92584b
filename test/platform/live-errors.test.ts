import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

/** A value for each path parameter that names nothing on a fresh server. */
const MISSING: Record<string, string> = {
  imageId: 'private/999999',
  kernelId: 'node/no-such-kernel',
  typeId: 'no-such-type',
  regionId: 'xx-nowhere',
  label: 'no-such-tag',
  username: 'nobody-here',
  address: '192.0.2.254',
  year: '2026',
  month: '1',
};

for (const dialect of DIALECTS) {
  describe(`errors as the live service words them [${dialect}]`, () => {
    test('every read of something that does not exist is a 404 whose reason is "Not found"', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const routes = app.runtime.app?.routeTable ?? [];
      const reads = routes.filter((r) => r.method === 'GET' && r.url.includes(':'));
      assert.ok(reads.length >= 40, `${reads.length} reads with a parameter`);
      const otherwise: string[] = [];
      for (const route of reads) {
        const url = route.url.replace(/:(\w+)/g, (_, name: string) => MISSING[name] ?? '999999');
        const res = await app.request('GET', url);
        const expected = { errors: [{ reason: 'Not found' }] };
        if (res.status !== 404 || JSON.stringify(res.body) !== JSON.stringify(expected)) {
          otherwise.push(`${url}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
        }
      }
      assert.deepEqual(otherwise, []);
      // A path no route has, and one under the beta base path, the same.
      for (const url of ['/v4/no-such-thing', '/v4beta/node/instances/999999']) {
        const res = await app.request('GET', url);
        assert.deepEqual([res.status, res.body], [404, { errors: [{ reason: 'Not found' }] }], url);
      }
    });

    test('a create with several bad fields names each of them, and makes nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const fields = async (body: unknown) => {
        const res = await app.request('POST', '/v4/node/instances', { body });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        return res.body.errors.map((e: { field: string }) => e.field);
      };
      assert.deepEqual(await fields({ region: 'xx-nowhere', type: 'no-such-type', label: 'fine-label' }), ['type', 'region']);
      // The live service's words and order, which an SDK's own tests compare as one string.
      const unknown = await app.request('POST', '/v4/node/instances', {
        body: { type: 'g6-fake-plan', region: 'us-fakeregion' },
      });
      assert.deepEqual(unknown.body, {
        errors: [
          { field: 'type', reason: 'A valid plan type by that ID was not found' },
          { field: 'region', reason: 'region is not valid' },
        ],
      });
      assert.deepEqual(await fields({ region: 'us-east', type: 'no-such-type', image: 'node/debian12' }), ['type', 'root_pass']);
      assert.deepEqual(
        await fields({ region: 'xx-nowhere', type: 'g6-nanode-1', image: 'node/no-such-image', root_pass: 'Long-enough-1' }),
        ['region', 'image'],
      );
      assert.deepEqual(await fields({ region: 5, type: 7, label: 'a' }), ['region', 'type', 'label']);
      assert.equal((await app.request('GET', '/v4/node/instances')).body.results, 0);
      assert.equal((await app.request('GET', '/v4/account/events')).body.results, 0);
    });
  });
}
