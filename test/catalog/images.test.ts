import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { up as privateImagesFirst } from '../../src/db/migrations/0032-private-images-first.ts';
import type { MigrationDb } from '../../src/db/migrations/schema-helpers.ts';
import { loadCatalog } from '../../src/domain/catalog/catalog.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';
import { grantImage, insertPrivateImage, xFilter } from './helpers.ts';

const catalog = loadCatalog();
const publicIds = catalog.data.images.map((i) => i.id);
const ids = (body: { data: { id: string }[] }) => body.data.map((i) => i.id);

for (const dialect of DIALECTS) {
  describe(`images [${dialect}]`, () => {
    test('anonymous callers list the public images only', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const mine = await insertPrivateImage(app, (await admin(app)).accountId);
      const res = await app.request('GET', '/v4/images', { token: null });
      assert.equal(res.status, 200);
      assert.equal(res.body.results, publicIds.length);
      assert.deepEqual(ids(res.body), publicIds);
      assert.ok(!ids(res.body).includes(mine.id));
      assert.ok(res.body.data.every((i: { is_public: boolean }) => i.is_public));
    });

    test('public images render the full image shape', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/images/node/debian10', { token: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        id: 'node/debian10',
        label: 'Debian 10',
        created: '2019-07-08T17:28:31',
        updated: '2019-07-08T17:28:31',
        created_by: 'node',
        deprecated: true,
        description: '',
        is_public: true,
        size: 1500,
        type: 'manual',
        expiry: null,
        eol: '2024-06-30T04:00:00',
        vendor: 'Debian',
        status: 'available',
        regions: [],
        total_size: 1500,
        tags: [],
        is_shared: false,
        capabilities: [],
        image_sharing: null,
      });
      const rolling = await app.request('GET', '/v4/images/node/arch');
      assert.equal(rolling.body.eol, null);
    });

    test('a token adds the caller account private images ahead of the public ones, never another account', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const account = (await admin(app)).accountId;
      const mine = await insertPrivateImage(app, account, { label: 'web-golden' });
      const other = await newAccount(app);
      const theirs = await insertPrivateImage(app, other.accountId, { label: 'their-golden' });

      const res = await app.request('GET', '/v4/images');
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res.body), [mine.id, ...publicIds]);
      assert.equal(res.body.results, publicIds.length + 1);
      const own = res.body.data[0];
      assert.equal(own.is_public, false);
      assert.equal(own.label, 'web-golden');
      assert.equal(own.created_by, 'tester');
      assert.deepEqual(own.image_sharing, {
        shared_with: { sharegroup_count: 0, sharegroup_list_url: `/images/${mine.id}/sharegroups` },
        shared_by: null,
      });
      assert.equal(own.vendor, null);
      assert.equal(own.eol, null);

      const theirList = await app.request('GET', '/v4/images', { token: other.token });
      assert.deepEqual(ids(theirList.body), [theirs.id, ...publicIds]);
    });

    test('private images list in creation order; migration 0032 moves kept ones ahead of the catalog', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const account = (await admin(app)).accountId;
      const first = await insertPrivateImage(app, account, { sort: 1_000_000 });
      const second = await insertPrivateImage(app, account, { sort: 1_000_000 });
      assert.deepEqual(ids((await app.request('GET', '/v4/images')).body), [...publicIds, first.id, second.id]);
      await privateImagesFirst(app.runtime.ctx.db as unknown as MigrationDb);
      assert.deepEqual(ids((await app.request('GET', '/v4/images')).body), [first.id, second.id, ...publicIds]);
    });

    test('view: own private image by either slash form; others and anonymous get 404', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const mine = await insertPrivateImage(app, (await admin(app)).accountId);
      const other = await newAccount(app);
      const theirs = await insertPrivateImage(app, other.accountId);

      for (const path of [mine.id, mine.id.replace('/', '%2F')]) {
        const res = await app.request('GET', `/v4/images/${path}`);
        assert.equal(res.status, 200, path);
        assert.equal(res.body.id, mine.id);
        assert.equal(res.body.is_public, false);
      }
      for (const path of [theirs.id, theirs.id.replace('/', '%2F')]) {
        const res = await app.request('GET', `/v4/images/${path}`);
        assert.equal(res.status, 404, path);
        assert.equal(typeof res.body.errors[0].reason, 'string');
      }
      const anonymous = await app.request('GET', `/v4/images/${mine.id}`, { token: null });
      assert.equal(anonymous.status, 404);
      const byOwner = await app.request('GET', `/v4/images/${theirs.id}`, { token: other.token });
      assert.equal(byOwner.status, 200);
    });

    test('view of a public image works with or without a token, raw or encoded', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const path of ['node/debian12', 'node%2Fdebian12', 'node%2fdebian12', 'node/debian12/']) {
        for (const token of [null, undefined]) {
          const res = await app.request('GET', `/v4/images/${path}`, { token });
          assert.equal(res.status, 200, `${path} ${token}`);
          assert.equal(res.body.id, 'node/debian12');
        }
      }
    });

    test('unknown ids are a 404', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const path of ['node/debian1', 'debian12', 'private/999999', 'private/abc', 'node/debian12/extra']) {
        const res = await app.request('GET', `/v4/images/${path}`);
        assert.equal(res.status, 404, path);
      }
    });

    test('a restricted user sees only the private images it holds a grant on', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const account = (await admin(app)).accountId;
      const granted = await insertPrivateImage(app, account);
      const hidden = await insertPrivateImage(app, account);
      const restricted = await newUser(app, account, { restricted: true });
      await grantImage(app, restricted, granted.num);

      const list = await app.request('GET', '/v4/images', { token: restricted.token });
      assert.deepEqual(ids(list.body), [granted.id, ...publicIds]);
      assert.equal((await app.request('GET', `/v4/images/${granted.id}`, { token: restricted.token })).status, 200);
      assert.equal((await app.request('GET', `/v4/images/${hidden.id}`, { token: restricted.token })).status, 404);
      assert.equal((await app.request('GET', '/v4/images/node/debian12', { token: restricted.token })).status, 200);
    });

    test('a bad token is refused even though anonymous calls pass; so is a token without the images scope', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const invalid = await app.request('GET', '/v4/images', { token: 'not-a-real-token-0000000000000000' });
      assert.equal(invalid.status, 401);
      const noScope = await newAccount(app, { scopes: 'nodes:read_only' });
      const refused = await app.request('GET', '/v4/images/node/debian12', { token: noScope.token });
      assert.equal(refused.status, 403);
      const readOnly = await newAccount(app, { scopes: 'images:read_only' });
      assert.equal((await app.request('GET', '/v4/images', { token: readOnly.token })).status, 200);
    });

    test('pages run over public and private images together', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const account = (await admin(app)).accountId;
      const extra = 40 - publicIds.length;
      const made: string[] = [];
      for (let i = 0; i < extra; i++) made.push((await insertPrivateImage(app, account)).id);
      const first = await app.request('GET', '/v4/images?page_size=25');
      assert.equal(first.body.results, 40);
      assert.equal(first.body.pages, 2);
      assert.equal(first.body.data.length, 25);
      const second = await app.request('GET', '/v4/images?page_size=25&page=2');
      assert.equal(second.body.data.length, 15);
      assert.deepEqual([...ids(first.body), ...ids(second.body)], [...made, ...publicIds]);
      for (const query of ['page_size=0', 'page_size=501', 'page=-1']) {
        assert.equal((await app.request('GET', `/v4/images?${query}`)).status, 400, query);
      }
    });

    test('X-Filter on the filterable image fields', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const account = (await admin(app)).accountId;
      const big = await insertPrivateImage(app, account, { size: 9000, label: 'Big Golden', type: 'automatic' });

      const priv = await app.request('GET', '/v4/images', xFilter({ is_public: false }));
      assert.deepEqual(ids(priv.body), [big.id]);
      const deprecated = await app.request('GET', '/v4/images', xFilter({ deprecated: true }));
      assert.deepEqual(ids(deprecated.body), ['node/debian10']);
      const debian = await app.request('GET', '/v4/images', { token: null, ...xFilter({ vendor: 'Debian', deprecated: false }) });
      assert.deepEqual(ids(debian.body), ['node/debian12', 'node/debian11']);
      const large = await app.request('GET', '/v4/images', xFilter({ size: { '+gte': 5000 } }));
      assert.deepEqual(ids(large.body), [big.id, 'node/gentoo']);
      const automatic = await app.request('GET', '/v4/images', xFilter({ type: 'automatic' }));
      assert.deepEqual(ids(automatic.body), [big.id]);
      const ubuntu = await app.request('GET', '/v4/images', xFilter({ label: { '+contains': 'ubuntu' } }));
      assert.equal(ubuntu.body.results, 3);
      const distros = await app.request(
        'GET',
        '/v4/images',
        xFilter({ '+or': [{ vendor: 'Alpine' }, { vendor: 'Gentoo' }], '+order_by': 'size', '+order': 'desc' }),
      );
      assert.deepEqual(ids(distros.body), ['node/gentoo', 'node/alpine3.19', 'node/alpine3.20']);
    });

    test('X-Filter on a field that is not filterable is refused and names it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const field of ['status', 'eol', 'created_by']) {
        const res = await app.request('GET', '/v4/images', xFilter({ [field]: 'x' }));
        assert.equal(res.status, 400, field);
        assert.equal(res.body.errors[0].field, 'X-Filter');
        assert.match(res.body.errors[0].reason, new RegExp(field));
      }
      const notJson = await app.request('GET', '/v4/images', { headers: { 'x-filter': '{nope' } });
      assert.equal(notJson.status, 400);
    });
  });
}
