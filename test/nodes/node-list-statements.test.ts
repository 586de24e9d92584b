import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CompiledQuery,
  type DialectAdapter,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresQueryCompiler,
  type QueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { type PageRequest, PageStatementCache } from '../../src/db/paginate.ts';
import { newAccount, newUser } from '../helpers/accounts.ts';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { createEmptyNode } from './helpers.ts';

/** The labels of a page of nodes as `token` lists them with this filter. */
async function labels(app: TestApp, token: string, filter: unknown, query = '') {
  const res = await app.request('GET', `/v4/node/instances${query}`, { token, headers: { 'X-Filter': JSON.stringify(filter) } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { labels: (res.body.data as { label: string }[]).map((n) => n.label), results: res.body.results as number };
}

for (const dialect of DIALECTS) {
  describe(`a page of nodes from kept statements [${dialect}]`, () => {
    test('the same request by another caller, page or filter gets its own nodes; a kept request sees new nodes', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const owner = await newAccount(app);
      const other = await newAccount(app);
      for (const label of ['web-1', 'web-2', 'web-3', 'db-1']) await createEmptyNode(app, { label }, owner.token);
      await createEmptyNode(app, { label: 'web-other' }, other.token);
      const web = { label: { '+contains': 'web' }, '+order_by': 'label' };

      assert.deepEqual(await labels(app, owner.token, web), { labels: ['web-1', 'web-2', 'web-3'], results: 3 });
      assert.deepEqual(await labels(app, other.token, web), { labels: ['web-other'], results: 1 }, 'another account');
      assert.deepEqual(await labels(app, owner.token, web, '?page=2&page_size=25'), { labels: [], results: 3 }, 'past the end');
      assert.deepEqual(await labels(app, owner.token, { label: { '+contains': 'db' } }), { labels: ['db-1'], results: 1 });

      // A restricted user of the same account, the same request: only the node it holds a grant on.
      const bob = await newUser(app, owner.accountId, { restricted: true });
      const ids = (await app.request('GET', '/v4/node/instances', { token: owner.token })).body.data as {
        id: number;
        label: string;
      }[];
      const web2 = ids.find((n) => n.label === 'web-2')?.id;
      const granted = await app.request('PUT', `/v4/account/users/${bob.username}/grants`, {
        token: owner.token,
        body: { node: [{ id: web2, permissions: 'read_only' }] },
      });
      assert.equal(granted.status, 200, JSON.stringify(granted.body));
      assert.deepEqual(await labels(app, bob.token, web), { labels: ['web-2'], results: 1 }, 'a restricted user');

      // The statements are kept, not their answers: a node made since shows in the same request.
      await createEmptyNode(app, { label: 'web-0' }, owner.token);
      assert.deepEqual(await labels(app, owner.token, web), { labels: ['web-0', 'web-1', 'web-2', 'web-3'], results: 4 });
      const spaced = await app.request('GET', '/v4/node/instances', {
        token: owner.token,
        headers: { 'X-Filter': '{"label": {"+contains": "web"}, "+order_by": "label", "+order": "desc"}' },
      });
      assert.deepEqual(
        (spaced.body.data as { label: string }[]).map((n) => n.label),
        ['web-3', 'web-2', 'web-1', 'web-0'],
        'another text of a filter is another request',
      );
    });
  });
}

describe('PageStatementCache', () => {
  const request = (filterText?: string, page = 1): PageRequest => ({ page, pageSize: 100, filterText });
  const statements = (label: string) => ({
    count: CompiledQuery.raw(`count ${label}`),
    page: CompiledQuery.raw(`page ${label}`),
  });

  // Databases that run nothing: the cache asks only for their dialect.
  const idle = (adapter: DialectAdapter, compiler: () => QueryCompiler) =>
    new Kysely<Database>({
      dialect: {
        createAdapter: () => adapter,
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: compiler,
      },
    });
  const sqlite = idle(new SqliteAdapter(), () => new SqliteQueryCompiler());
  const postgres = idle(new PostgresAdapter(), () => new PostgresQueryCompiler());

  test('keeps a request by dialect, owner, page, page size and filter text, and drops the least recently used', () => {
    const cache = new PageStatementCache(3);
    let built = 0;
    const get = (owner: string, req: PageRequest, db = sqlite) =>
      cache.statements(db, owner, req, () => {
        built += 1;
        return statements(`${owner}${built}`);
      });

    const a = get('1:', request('{"x":1}'));
    assert.equal(get('1:', request('{"x":1}')), a, 'the same request');
    assert.equal(built, 1);
    assert.notEqual(get('2:', request('{"x":1}')), a, 'another owner');
    assert.equal(built, 2);
    assert.notEqual(get('1:', request('{"x":1}', 2)), a, 'another page');
    assert.equal(built, 3);
    assert.equal(get('1:', request('{"x":1}')), a, 'used again, so now the most recent');
    assert.notEqual(get('1:', request()), a, 'no filter is not an empty one');
    assert.equal(built, 4);
    assert.equal(get('1:', request('{"x":1}')), a, 'still kept: the owner 2 request was dropped');
    get('2:', request('{"x":1}'));
    assert.equal(built, 5, 'the dropped request is built again');

    const pg = get('1:', request('{"x":1}'), postgres);
    assert.notEqual(pg, a, 'another dialect');
    assert.equal(get('1:', request('{"x":1}'), postgres), pg);
    assert.equal(built, 6);

    const long = request(`{"label":"${'x'.repeat(2000)}"}`);
    get('1:', long);
    get('1:', long);
    assert.equal(built, 8, 'a long filter is built each time it comes');
  });
});
