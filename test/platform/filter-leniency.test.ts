import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTestApp, DIALECTS, type TestApp } from '../helpers/app.ts';
import { operationsOf } from '../helpers/openapi-compare.ts';
import { createEmptyNode } from '../nodes/helpers.ts';
import { furnish } from './bad-input-world.ts';

/**
 * X-Filter as clients send it: what they send when nothing is filtered matches everything in the
 * collection's own order, and every collection of labelled objects is filterable by `label`.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema a `$ref` points at, or the schema itself. */
function resolve(doc: Json, schema: unknown): Json {
  if (!isObject(schema)) return {};
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  return resolve(doc, ((doc.components as Json)?.schemas as Json)?.[name]);
}

/** The documented list operations (`GET`, a paged `data` array) whose items have a `label`. */
function labelledCollections(doc: Json): string[] {
  const out: string[] = [];
  for (const { method, path, op } of operationsOf(doc)) {
    if (method !== 'get') continue;
    const ok = resolve(doc, ((((op.responses as Json)?.['200'] as Json)?.content as Json)?.['application/json'] as Json)?.schema);
    const props = ok.properties as Json | undefined;
    if (!props?.data || !props.pages) continue;
    const item = resolve(doc, (resolve(doc, props.data) as Json).items);
    if (isObject(item.properties) && 'label' in item.properties) out.push(path);
  }
  return out;
}

async function list(app: TestApp, url: string, filter?: unknown) {
  const res = await app.request('GET', url, filter === undefined ? {} : { headers: { 'x-filter': JSON.stringify(filter) } });
  assert.equal(res.status, 200, `${url} ${JSON.stringify(filter)}: ${JSON.stringify(res.body)}`);
  return res.body as { data: Json[]; results: number };
}

for (const dialect of DIALECTS) {
  describe(`X-Filter as clients send it [${dialect}]`, () => {
    test('an empty +and or +or matches everything; +order alone keeps the default order', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (let i = 0; i < 3; i += 1) await createEmptyNode(app);
      const all = await list(app, '/v4/node/instances');
      assert.equal(all.results, 3);
      const ids = (page: { data: Json[] }) => page.data.map((n) => n.id);
      assert.deepEqual(ids(await list(app, '/v4/node/instances', { '+and': [], '+order': 'asc' })), ids(all));
      assert.deepEqual(ids(await list(app, '/v4/node/instances', { '+or': [] })), ids(all));
      assert.deepEqual(ids(await list(app, '/v4/node/instances', { label: { '+or': [] } })), ids(all));
      assert.deepEqual(ids(await list(app, '/v4/node/instances', { '+order': 'desc' })), ids(all).reverse());
      const events = await list(app, '/v4/account/events', { '+and': [], '+order': 'asc' });
      const created = events.data.map((e) => Number(e.id));
      assert.deepEqual(
        created,
        [...created].sort((a, b) => a - b),
        'events by their default field, ascending',
      );
      for (const bad of [{ '+and': {} }, { '+or': 'x' }, { label: {} }]) {
        const res = await app.request('GET', '/v4/node/instances', { headers: { 'x-filter': JSON.stringify(bad) } });
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(res.body.errors[0].field, 'X-Filter');
      }
    });

    test('every collection of labelled objects filters by label; other fields it does not declare stay a 400', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const world = await furnish(app);
      const doc = (await app.request('GET', '/v4/openapi.json', { token: null })).body as Json;
      const paths = labelledCollections(doc);
      for (const expected of ['/node/instances', '/profile/sshkeys', '/profile/tokens', '/tags', '/managed/services']) {
        assert.ok(paths.includes(expected), `${expected} is found as a labelled collection`);
      }
      for (const path of paths) {
        const url = `/v4${path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(world.params[name] ?? ''))}`;
        const all = await list(app, url);
        const label = (all.data[0]?.label as string | undefined) ?? 'no-such-label';
        const found = await list(app, url, { label });
        assert.ok(
          found.data.every((item) => item.label === label),
          `${url}: only items labelled ${label}`,
        );
        assert.equal(
          found.results,
          all.data.filter((item) => item.label === label).length,
          `${url}: every item labelled ${label}`,
        );
      }
      const res = await app.request('GET', '/v4/profile/sshkeys', { headers: { 'x-filter': '{"ssh_key": "x"}' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].field, 'X-Filter');
    });
  });
}
