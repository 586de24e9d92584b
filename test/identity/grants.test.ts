import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GRANT_ENTITY_TYPES } from '../../src/domain/account/grants.ts';
import { admin, newAccount, newUser } from '../helpers/accounts.ts';
import type { TestApp } from '../helpers/app.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

/** The kinds granted one by one, and those not offered here (always empty). */
const ENTITY_LISTS = [...GRANT_ENTITY_TYPES, 'database', 'vpc'];
/** Global grants that take null for none besides true and false. */
const NULLABLE_GLOBAL = ['account_access', 'child_account_access'];

/** An empty node of the bootstrap account, made through the API; returns its id. */
async function addNode(app: TestApp, label: string): Promise<number> {
  const res = await app.request('POST', '/v4/node/instances', { body: { region: 'us-east', type: 'g6-nanode-1', label } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

/** A private image row of the account (the images group owns the API for them). */
async function addImage(app: TestApp, accountId: number, label: string): Promise<number> {
  const now = '2026-01-01T00:00:00';
  const row = await app.runtime.ctx.db
    .insertInto('images')
    .values({
      id: `private/tmp-${label}`,
      account_id: accountId,
      label,
      description: null,
      created: now,
      updated: now,
      created_by: 'admin',
      deprecated: 0,
      is_public: 0,
      size: 1,
      type: 'manual',
      expiry: null,
      eol: null,
      vendor: null,
      status: 'available',
      sort: 0,
    })
    .returning('num')
    .executeTakeFirstOrThrow();
  await app.runtime.ctx.db
    .updateTable('images')
    .set({ id: `private/${row.num}` })
    .where('num', '=', row.num)
    .execute();
  return row.num;
}

for (const dialect of DIALECTS) {
  describe(`user grants [${dialect}]`, () => {
    test('an unrestricted user has no grants: 204 on view, 400 on update', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const view = await app.request('GET', '/v4/account/users/admin/grants');
      assert.equal(view.status, 204);
      assert.equal(view.body, '');
      const update = await app.request('PUT', '/v4/account/users/admin/grants', { body: { global: { add_nodes: true } } });
      assert.equal(update.status, 400);
    });

    test('a new restricted user holds nothing', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const user = await newUser(app, me.accountId, { restricted: true });
      const res = await app.request('GET', `/v4/account/users/${user.username}/grants`);
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['global', ...ENTITY_LISTS].sort());
      for (const [flag, value] of Object.entries(res.body.global)) {
        assert.equal(value, NULLABLE_GLOBAL.includes(flag) ? null : false, flag);
      }
      for (const list of ENTITY_LISTS) assert.deepEqual(res.body[list], []);
    });

    test('databases, VPCs and child accounts (not offered) are granted to no one, and taken back only so', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const user = await newUser(app, me.accountId, { restricted: true });
      const url = `/v4/account/users/${user.username}/grants`;
      const read = await app.request('GET', url);
      assert.deepEqual(
        [read.body.global.add_databases, read.body.global.add_vpcs, read.body.global.child_account_access],
        [false, false, null],
      );
      assert.deepEqual([read.body.database, read.body.vpc], [[], []]);

      // What a client read, sent back whole with one change: taken, nothing unknown.
      const sentBack = await app.request('PUT', url, {
        body: { ...read.body, global: { ...read.body.global, add_nodes: true } },
      });
      assert.equal(sentBack.status, 200, JSON.stringify(sentBack.body));
      assert.equal(sentBack.headers.warning, undefined);
      assert.deepEqual(sentBack.body, { ...read.body, global: { ...read.body.global, add_nodes: true } });
      const asFalse = await app.request('PUT', url, { body: { global: { child_account_access: false, add_vpcs: false } } });
      assert.equal(asFalse.status, 200);
      assert.equal(asFalse.body.global.child_account_access, null);

      // Each with a change that would be taken otherwise.
      const refused: [unknown, string, string][] = [
        [{ global: { add_domains: true, add_databases: true } }, 'global.add_databases', 'Databases are not offered here'],
        [{ global: { add_domains: true, add_vpcs: true } }, 'global.add_vpcs', 'VPCs are not offered here'],
        [
          { global: { add_domains: true, child_account_access: true } },
          'global.child_account_access',
          'There are no child accounts here',
        ],
        [
          { global: { add_domains: true }, database: [{ id: 4, permissions: 'read_only' }] },
          'database[0].id',
          'No database with id 4 on this account',
        ],
        [{ global: { add_domains: true }, vpc: [{ id: 5, permissions: null }] }, 'vpc[0].id', 'No vpc with id 5 on this account'],
      ];
      for (const [body, field, reason] of refused) {
        const res = await app.request('PUT', url, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.deepEqual(res.body.errors, [{ field, reason }]);
      }
      assert.deepEqual((await app.request('GET', url)).body, sentBack.body, 'a refused update changes nothing');
    });

    test('update sets what it names and leaves the rest; null permissions take a grant away', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const user = await newUser(app, me.accountId, { restricted: true });
      const url = `/v4/account/users/${user.username}/grants`;
      // One after the other: the grants list is in node id order.
      const ten = await addNode(app, 'node-ten');
      const eleven = await addNode(app, 'node-eleven');
      const domain = await app.request('POST', '/v4/domains', {
        body: { domain: 'grants.example', type: 'master', soa_email: 'hostmaster@grants.example' },
      });
      assert.equal(domain.status, 200);
      const first = await app.request('PUT', url, {
        body: {
          global: { add_nodes: true, account_access: 'read_only' },
          node: [
            { id: ten, permissions: 'read_only' },
            { id: eleven, permissions: 'read_write', label: 'ignored' },
          ],
          domain: [{ id: domain.body.id, permissions: 'read_write' }],
        },
      });
      assert.equal(first.status, 200);
      assert.equal(first.body.global.add_nodes, true);
      assert.equal(first.body.global.account_access, 'read_only');
      assert.deepEqual(first.body.node, [
        { id: ten, permissions: 'read_only', label: 'node-ten' },
        { id: eleven, permissions: 'read_write', label: 'node-eleven' },
      ]);

      const second = await app.request('PUT', url, {
        body: { global: { add_domains: true }, node: [{ id: ten, permissions: null }] },
      });
      assert.equal(second.status, 200);
      assert.equal(second.body.global.add_nodes, true, 'flags left out stay');
      assert.equal(second.body.global.add_domains, true);
      assert.equal(second.body.global.account_access, 'read_only');
      assert.deepEqual(second.body.node, [
        { id: ten, permissions: null, label: 'node-ten' },
        { id: eleven, permissions: 'read_write', label: 'node-eleven' },
      ]);
      assert.deepEqual(
        second.body.domain,
        [{ id: domain.body.id, permissions: 'read_write', label: 'grants.example' }],
        'lists left out stay',
      );
      assert.deepEqual((await app.request('GET', url)).body, second.body);
      const unknown = await app.request('PUT', url, { body: { node: [{ id: 999999, permissions: 'read_only' }] } });
      assert.equal(unknown.status, 400, 'node grants name nodes of the account');
      assert.equal(unknown.body.errors[0].field, 'node[0].id');
    });

    test('image grants name images of the account, shown with their labels', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const stranger = await newAccount(app);
      const mine = await addImage(app, me.accountId, 'golden');
      const other = await addImage(app, me.accountId, 'spare');
      const theirs = await addImage(app, stranger.accountId, 'foreign');
      const user = await newUser(app, me.accountId, { restricted: true });
      const url = `/v4/account/users/${user.username}/grants`;

      const refused = await app.request('PUT', url, {
        body: {
          image: [
            { id: mine, permissions: 'read_only' },
            { id: theirs, permissions: 'read_only' },
            { id: 999999, permissions: 'read_only' },
          ],
        },
      });
      assert.equal(refused.status, 400);
      assert.deepEqual(
        refused.body.errors.map((e: { field: string }) => e.field),
        ['image[1].id', 'image[2].id'],
      );
      assert.deepEqual((await app.request('GET', url)).body.image[0].permissions, null, 'nothing was written');

      const twice = await app.request('PUT', url, {
        body: {
          image: [
            { id: mine, permissions: 'read_only' },
            { id: mine, permissions: 'read_write' },
          ],
        },
      });
      assert.equal(twice.status, 400);
      assert.equal(twice.body.errors[0].field, 'image[1].id');

      const ok = await app.request('PUT', url, { body: { image: [{ id: mine, permissions: 'read_write' }] } });
      assert.equal(ok.status, 200);
      // The administrator's view lists every image of the account; the user's own only what it holds.
      assert.deepEqual(ok.body.image, [
        { id: mine, permissions: 'read_write', label: 'golden' },
        { id: other, permissions: null, label: 'spare' },
      ]);
      const own = await app.request('GET', '/v4/profile/grants', { token: user.token });
      assert.deepEqual(own.body.image, [{ id: mine, permissions: 'read_write', label: 'golden' }]);
    });

    test('update validates the body', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const user = await newUser(app, me.accountId, { restricted: true });
      const url = `/v4/account/users/${user.username}/grants`;
      const cases: [unknown, string][] = [
        [{ global: { add_nodes: 'yes' } }, 'global.add_nodes'],
        [{ global: { account_access: 'admin' } }, 'global.account_access'],
        [{ node: [{ id: 'x', permissions: 'read_only' }] }, 'node[0].id'],
        [{ node: [{ id: 1, permissions: 'owner' }] }, 'node[0].permissions'],
        [{ node: [{ id: 1 }] }, 'node[0].permissions'],
        [{ volume: {} }, 'volume'],
      ];
      for (const [body, field] of cases) {
        const res = await app.request('PUT', url, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.errors[0].field, field, JSON.stringify(body));
      }
      assert.equal((await app.request('GET', '/v4/account/users/nobody-here/grants')).status, 404);
    });

    test('global account_access decides what a restricted user may do with the account', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const me = await admin(app);
      const user = await newUser(app, me.accountId, { restricted: true });
      const url = `/v4/account/users/${user.username}/grants`;
      const asUser = { token: user.token };
      assert.equal((await app.request('GET', '/v4/account', asUser)).status, 403);
      await app.request('PUT', url, { body: { global: { account_access: 'read_only' } } });
      assert.equal((await app.request('GET', '/v4/account', asUser)).status, 200);
      assert.equal((await app.request('PUT', '/v4/account', { ...asUser, body: { city: 'Oslo' } })).status, 403);
      await app.request('PUT', url, { body: { global: { account_access: 'read_write' } } });
      assert.equal((await app.request('PUT', '/v4/account', { ...asUser, body: { city: 'Oslo' } })).status, 200);
    });
  });
}
