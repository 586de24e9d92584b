import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import type { FilterFieldType, FilterSpec } from '../../src/db/filter.ts';
import { paginate } from '../../src/db/paginate.ts';
import { ApiError } from '../../src/errors.ts';
import { normalizeTimestamp } from '../../src/time/timestamp.ts';
import { buildTestApp, DIALECTS } from '../helpers/app.ts';

/**
 * Property tests of the X-Filter compiler against a real database: random rows in a probe
 * table, random filter documents, and the rows `paginate` returns compared with a plain
 * in-memory evaluation of the same document.
 */

interface ProbeTable {
  id: number;
  n: number | null;
  x: number | null;
  label: string | null;
  flag: number | null;
  at: string | null;
  secret: string | null;
}
type ProbeDb = Database & { filter_probe: ProbeTable };
type Row = ProbeTable;
type Doc = Record<string, unknown>;
type Field = 'id' | 'n' | 'x' | 'label' | 'flag' | 'at';

const TYPES: Record<Field, FilterFieldType> = {
  id: 'integer',
  n: 'integer',
  x: 'number',
  label: 'string',
  flag: 'boolean',
  at: 'datetime',
};
const FIELDS = Object.keys(TYPES) as Field[];
const SPEC: FilterSpec = {
  fields: Object.fromEntries(FIELDS.map((f) => [f, { column: `filter_probe.${f}`, type: TYPES[f] }])),
  tiebreak: 'filter_probe.id',
};

async function createProbe(db: Kysely<Database>): Promise<Kysely<ProbeDb>> {
  const probe = db.withTables<{ filter_probe: ProbeTable }>();
  await probe.schema
    .createTable('filter_probe')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('n', 'integer')
    .addColumn('x', 'double precision')
    .addColumn('label', 'text')
    .addColumn('flag', 'integer')
    .addColumn('at', 'text')
    .addColumn('secret', 'text')
    .execute();
  return probe;
}

async function fill(db: Kysely<ProbeDb>, rows: Row[]): Promise<void> {
  await db.deleteFrom('filter_probe').execute();
  if (rows.length) await db.insertInto('filter_probe').values(rows).execute();
}

// ---------- generators ----------

// ASCII only: sqlite's lower() folds only ASCII, and JS compares strings by UTF-16 units.
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'B', '%', '_', '\\', ' '), maxLength: 3 });
/** Filter text: often one of a few short values, so equality finds rows. */
const textValue = fc.oneof(fc.constantFrom('', 'a', 'b', 'B', '%', '_', 'ab'), text);
const STAMPS = ['2023-12-31T23:59:59', '2024-01-01T00:00:00', '2024-01-01T12:30:00', '2024-06-15T08:00:00'];
const stamp = fc.constantFrom(...STAMPS);
/** The same instants, spelled the ways a client may write them. */
const stampInput = fc.oneof(
  stamp,
  stamp.map((s) => `${s}Z`),
  stamp.map((s) => new Date(`${s}Z`).toISOString()),
  stamp.map((s) => {
    const d = new Date(Date.parse(`${s}Z`) + 2 * 3600_000).toISOString().slice(0, 19);
    return `${d}+02:00`;
  }),
);
const smallInt = fc.integer({ min: -4, max: 4 });
const numberValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(-1.5, 0, 0.25, 1, 2.5) },
  { weight: 1, arbitrary: smallInt },
  { weight: 1, arbitrary: fc.double({ min: -5, max: 5, noNaN: true }) },
);
const integerValue = fc.oneof(
  { weight: 8, arbitrary: smallInt },
  { weight: 1, arbitrary: fc.constantFrom(2147483647, -2147483648, 3_000_000_000, -3_000_000_000, Number.MAX_SAFE_INTEGER) },
);

const rowArb = fc.record({
  n: fc.option(smallInt),
  x: fc.option(fc.constantFrom(-1.5, 0, 0.25, 1, 2.5)),
  label: fc.option(fc.oneof(fc.constantFrom('a', 'b', 'ab', 'Ba'), text)),
  flag: fc.option(fc.constantFrom(0, 1)),
  at: fc.option(stamp),
  secret: fc.option(text),
});
const rowsArb = fc.array(rowArb, { minLength: 3, maxLength: 25 }).map((rows) => rows.map((r, i): Row => ({ id: i + 1, ...r })));

function valueFor(type: FilterFieldType): fc.Arbitrary<unknown> {
  switch (type) {
    case 'integer':
      return integerValue;
    case 'number':
      return numberValue;
    case 'string':
      return textValue;
    case 'boolean':
      return fc.boolean();
    case 'datetime':
      return stampInput;
  }
}

/** One condition on a field: a value (equality), null, an operator object, or a field-level +and/+or. */
function conditionOf(type: FilterFieldType, depth: number): fc.Arbitrary<unknown> {
  const ordered = type === 'boolean' ? [] : ['+gt', '+gte', '+lt', '+lte'];
  const ops = [...ordered, '+neq', ...(type === 'string' ? ['+contains'] : [])];
  const opObject = fc
    .uniqueArray(fc.constantFrom(...ops), { minLength: 1, maxLength: 2, size: 'xsmall' })
    .chain((keys) =>
      fc.tuple(...keys.map((k) => (k === '+neq' ? fc.option(valueFor(type)) : valueFor(type)))).map((vs) => ({ keys, vs })),
    )
    .map(({ keys, vs }) => Object.fromEntries(keys.map((k, i) => [k, vs[i]])));
  const leaf = fc.oneof(
    { weight: 3, arbitrary: valueFor(type) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: opObject },
  );
  if (depth <= 0) return leaf;
  const nested = fc.record({
    // Mostly +or: an +and of several values on one field rarely matches anything.
    op: fc.constantFrom('+or', '+or', '+and'),
    // An empty list matches everything, as clients send it when nothing is filtered.
    list: fc.array(conditionOf(type, depth - 1), { minLength: 0, maxLength: 3 }),
  });
  return fc.oneof({ weight: 3, arbitrary: leaf }, { weight: 1, arbitrary: nested.map(({ op, list }) => ({ [op]: list })) });
}

const fieldEntry = fc.constantFrom(...FIELDS).chain((f) => conditionOf(TYPES[f], 1).map((c): [string, unknown] => [f, c]));

const exprArb: fc.Arbitrary<Doc> = fc.letrec<{ expr: Doc }>((tie) => ({
  expr: fc
    .tuple(
      fc.array(fieldEntry, { maxLength: 2 }),
      fc.option(
        fc.record({
          op: fc.constantFrom('+and', '+or'),
          list: fc.array(tie('expr'), { minLength: 0, maxLength: 3 }),
        }),
        { freq: 2, depthSize: 'small' },
      ),
    )
    .map(([entries, group]) => ({ ...Object.fromEntries(entries), ...(group ? { [group.op]: group.list } : {}) })),
})).expr;

const docArb = fc
  .tuple(exprArb, fc.option(fc.constantFrom(...FIELDS)), fc.option(fc.constantFrom('asc', 'desc')))
  .map(([expr, by, order]): Doc => ({ ...expr, ...(by ? { '+order_by': by } : {}), ...(order ? { '+order': order } : {}) }));

function countConditions(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + countConditions(x), 0);
  if (typeof v !== 'object' || v === null) return 1;
  return Object.entries(v).reduce((n, [k, x]) => n + (k === '+order_by' || k === '+order' ? 0 : countConditions(x)), 0);
}

// ---------- the oracle ----------

function isObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function matches(row: Row, doc: Doc): boolean {
  return Object.entries(doc).every(([key, value]) => {
    if (key === '+order_by' || key === '+order') return true;
    if (key === '+and') return (value as Doc[]).every((d) => matches(row, d));
    if (key === '+or') return (value as Doc[]).length === 0 || (value as Doc[]).some((d) => matches(row, d));
    return holds(row[key as Field], TYPES[key as Field], value);
  });
}

function holds(cell: string | number | null, type: FilterFieldType, condition: unknown): boolean {
  if (!isObject(condition)) return compare(cell, type, '+eq', condition);
  return Object.entries(condition).every(([op, operand]) => {
    if (op === '+and') return (operand as unknown[]).every((c) => holds(cell, type, c));
    if (op === '+or') return (operand as unknown[]).length === 0 || (operand as unknown[]).some((c) => holds(cell, type, c));
    return compare(cell, type, op, operand);
  });
}

function compare(cell: string | number | null, type: FilterFieldType, op: string, raw: unknown): boolean {
  if (raw === null) return op === '+eq' ? cell === null : cell !== null;
  const value =
    type === 'boolean' ? (raw ? 1 : 0) : type === 'datetime' ? normalizeTimestamp(String(raw)) : (raw as string | number);
  if (op === '+neq') return cell === null || cell !== value;
  if (cell === null || value === null) return false;
  switch (op) {
    case '+eq':
      return cell === value;
    case '+gt':
      return cell > value;
    case '+gte':
      return cell >= value;
    case '+lt':
      return cell < value;
    case '+lte':
      return cell <= value;
    case '+contains':
      return String(cell).toLowerCase().includes(String(value).toLowerCase());
  }
  throw new Error(`oracle: unknown operator ${op}`);
}

/** Expected order: the named field (nulls highest), then id, both in the requested direction. */
function expectedOrder(rows: Row[], doc: Doc): Row[] {
  const by = doc['+order_by'] as Field | undefined;
  const sign = doc['+order'] === 'desc' ? -1 : 1;
  const cmp = (a: string | number | null, b: string | number | null) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;
  return [...rows].sort((a, b) => sign * ((by ? cmp(a[by], b[by]) : 0) || cmp(a.id, b.id)));
}

function explain(doc: unknown, rows: Row[]): string {
  return `filter ${JSON.stringify(doc)}\nrows ${JSON.stringify(rows)}`;
}

function assertFilterError(err: unknown, doc: unknown): true {
  assert.ok(err instanceof ApiError, `expected an ApiError for ${JSON.stringify(doc)}, got ${String(err)}`);
  assert.equal(err.status, 400, `status for ${JSON.stringify(doc)}`);
  assert.equal(err.errors[0]?.field, 'X-Filter', `field for ${JSON.stringify(doc)}`);
  return true;
}

// ---------- garbage ----------

/** Text no database column holds: PostgreSQL refuses the NUL character outright. */
const withNul = fc.tuple(text, text).map(([a, b]) => `${a}\u0000${b}`);
const wrongValue: fc.Arbitrary<Doc> = fc.oneof(
  fc.record({
    label: fc.oneof(
      withNul,
      withNul.map((v) => ({ '+contains': v })),
      withNul.map((v) => ({ '+neq': v })),
    ),
  }),
  fc.record({ n: fc.oneof(fc.string(), fc.boolean(), fc.double({ min: 0.1, max: 0.9 }), fc.constant(1e300)) }),
  fc.record({ x: fc.oneof(fc.string(), fc.boolean(), fc.constant([1])) }),
  fc.record({ flag: fc.oneof(fc.constantFrom(0, 1, 'true', 'false'), fc.string()) }),
  fc.record({ at: fc.oneof(fc.constantFrom('yesterday', '2024-13-45T99:00:00', ''), fc.integer()) }),
  fc.record({ label: fc.oneof(fc.integer(), fc.boolean(), fc.constant({})) }),
  fc.record({ label: fc.record({ '+contains': fc.oneof(fc.integer(), fc.constant(null), fc.boolean()) }) }),
  fc.record({ n: fc.record({ '+contains': fc.string() }) }),
  fc.record({ flag: fc.record({ '+gt': fc.boolean() }) }),
  fc.constantFrom('+gt', '+gte', '+lt', '+lte', '+contains').map((op) => ({ n: { [op]: null } })),
);
const unknownOperator: fc.Arbitrary<Doc> = fc.oneof(
  fc.record({ n: fc.dictionary(fc.constantFrom('+like', '+in', '+eq', '+not', 'gt', '+GT'), fc.integer(), { minKeys: 1 }) }),
  fc.constantFrom('+not', '+nor', '+xor', '+', '+order_dir').map((k) => ({ [k]: [{ n: 1 }] })),
);
const notFilterable: fc.Arbitrary<Doc> = fc.oneof(
  fc.record({ secret: text }),
  fc
    .string({ minLength: 1, maxLength: 8 })
    .filter((k) => !k.startsWith('+') && !(k in TYPES) && k !== '__proto__')
    .map((k) => ({ [k]: 1 })),
  fc.constantFrom({ '+order_by': 'secret' }, { '+order_by': 'nope' }, { '+order_by': 5 }, { '+order': 'up' }, { '+order': 1 }),
);
const malformed: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .constantFrom('+and', '+or')
    .chain((op) =>
      fc.oneof(
        fc.constant({ [op]: {} }),
        fc.constant({ [op]: 'n' }),
        fc.constant({ [op]: [1] }),
        fc.constant({ [op]: [[{ n: 1 }]] }),
        fc.constant({ n: { [op]: 1 } }),
        fc.constant({ [op]: [{ '+order_by': 'n' }] }),
      ),
    ),
  fc.constant({ n: {} }),
  fc.constantFrom(5, 'n', true, [{ n: 1 }], []),
  fc.integer({ min: 9, max: 12 }).map((depth) => {
    let doc: Doc = { n: 1 };
    for (let i = 0; i < depth; i++) doc = { '+and': [doc] };
    return doc;
  }),
  fc.constant({ '+or': Array.from({ length: 101 }, (_, i) => ({ n: i })) }),
);
const broken = fc.oneof(wrongValue, unknownOperator, notFilterable, malformed);
/** A valid document with one broken piece somewhere in it. */
const garbageArb = fc.tuple(exprArb, broken, fc.constantFrom('alone', 'top', 'and', 'or')).map(([valid, bad, where]): unknown => {
  if (where === 'alone' || !isObject(bad)) return bad;
  if (where === 'top') return { ...valid, ...bad };
  return { [where === 'and' ? '+and' : '+or']: [valid, bad] };
});

// ---------- the properties ----------

for (const dialect of DIALECTS) {
  describe(`X-Filter properties [${dialect}]`, () => {
    test('paginate returns exactly the rows, order and counts an in-memory evaluation gives', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const db = await createProbe(app.runtime.ctx.db);
      await fc.assert(
        fc.asyncProperty(
          rowsArb,
          docArb,
          fc.integer({ min: 1, max: 10 }),
          fc.integer({ min: 1, max: 4 }),
          async (rows, doc, pageSize, page) => {
            fc.pre(countConditions(doc) <= 100);
            await fill(db, rows);
            const expected = expectedOrder(
              rows.filter((r) => matches(r, doc)),
              doc,
            );
            const got = await paginate(db.selectFrom('filter_probe').selectAll(), { page, pageSize, filter: doc }, SPEC);
            const why = explain(doc, rows);
            assert.equal(got.results, expected.length, why);
            assert.equal(got.pages, Math.max(1, Math.ceil(expected.length / pageSize)), why);
            const slice = expected.slice((page - 1) * pageSize, page * pageSize);
            assert.deepEqual(
              got.data.map((r) => r.id),
              slice.map((r) => r.id),
              why,
            );
          },
        ),
        { numRuns: 150 },
      );
    });

    test('broken filters are a 400 naming X-Filter, never a database error', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const db = await createProbe(app.runtime.ctx.db);
      await fill(db, [{ id: 1, n: 1, x: 1, label: 'a', flag: 1, at: STAMPS[0] ?? null, secret: 's' }]);
      await fc.assert(
        fc.asyncProperty(garbageArb, async (doc) => {
          await assert.rejects(
            paginate(db.selectFrom('filter_probe').selectAll(), { page: 1, pageSize: 25, filter: doc }, SPEC),
            (err) => assertFilterError(err, doc),
          );
        }),
        { numRuns: 150 },
      );
    });

    test('any JSON value either filters or is a 400 naming X-Filter', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const db = await createProbe(app.runtime.ctx.db);
      await fill(db, [{ id: 1, n: 1, x: 1, label: 'a', flag: 1, at: STAMPS[0] ?? null, secret: 's' }]);
      const json = fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.dictionary(
          fc.constantFrom(...FIELDS, '+and', '+or', '+order_by', '+order', '+gt', '+contains'),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      );
      await fc.assert(
        fc.asyncProperty(json, async (doc) => {
          try {
            await paginate(db.selectFrom('filter_probe').selectAll(), { page: 1, pageSize: 25, filter: doc }, SPEC);
          } catch (err) {
            assertFilterError(err, doc);
          }
        }),
        { numRuns: 150 },
      );
    });
  });
}

// ---------- cases the properties found, and the header through HTTP ----------

for (const dialect of DIALECTS) {
  describe(`X-Filter regressions and HTTP [${dialect}]`, () => {
    const rows: Row[] = [
      { id: 1, n: 1, x: null, label: null, flag: null, at: null, secret: null },
      { id: 2, n: 2, x: null, label: 'b', flag: null, at: null, secret: null },
      { id: 3, n: null, x: null, label: 'a', flag: null, at: null, secret: null },
    ];
    const ids = async (db: Kysely<ProbeDb>, filter: Doc) =>
      (await paginate(db.selectFrom('filter_probe').selectAll(), { page: 1, pageSize: 25, filter }, SPEC)).data.map((r) => r.id);

    test('an integer beyond 32 bits compares instead of failing the query', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const db = await createProbe(app.runtime.ctx.db);
      await fill(db, rows);
      assert.deepEqual(await ids(db, { n: 3_000_000_000 }), []);
      assert.deepEqual(await ids(db, { n: { '+lt': 3_000_000_000 } }), [1, 2]);
      assert.deepEqual(await ids(db, { n: { '+neq': -3_000_000_000 } }), [1, 2, 3]);
      const res = await app.request('GET', '/v4/account/events', { headers: { 'x-filter': '{"id": 3000000000}' } });
      assert.equal(res.status, 200);
      assert.equal(res.body.results, 0);
    });

    test('nulls sort highest on both databases', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const db = await createProbe(app.runtime.ctx.db);
      await fill(db, rows);
      assert.deepEqual(await ids(db, { '+order_by': 'label' }), [3, 2, 1]);
      assert.deepEqual(await ids(db, { '+order_by': 'label', '+order': 'desc' }), [1, 2, 3]);
    });

    test('text holding NUL is a 400 naming X-Filter', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const res = await app.request('GET', '/v4/regions', { headers: { 'x-filter': '{"country": {"+contains": "a\\u0000"}}' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].field, 'X-Filter');
    });

    test('names an object has by inheritance (valueOf, constructor, ...) are not fields: a 400 naming X-Filter', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const name of ['valueOf', 'toString', 'constructor', 'hasOwnProperty', '__proto__']) {
        for (const filter of [`{"${name}": 0}`, `{"+order_by": "${name}"}`]) {
          const res = await app.request('GET', '/v4/regions', { headers: { 'x-filter': filter } });
          assert.equal(res.status, 400, filter);
          assert.equal(res.body.errors[0].field, 'X-Filter', filter);
        }
      }
    });

    test('GET /v4/regions filters by a filterable field', async (t) => {
      const app = await buildTestApp(t, { dialect });
      const all = await app.request('GET', '/v4/regions');
      assert.equal(all.status, 200);
      const country = all.body.data[0]?.country as string;
      assert.ok(country, 'the catalog has regions');
      const res = await app.request('GET', '/v4/regions', { headers: { 'x-filter': JSON.stringify({ country }) } });
      assert.equal(res.status, 200);
      const expected = all.body.data.filter((r: { country: string }) => r.country === country);
      assert.deepEqual(res.body.data, expected);
      assert.equal(res.body.results, expected.length);
    });

    test('GET /v4/regions: malformed X-Filter JSON is a 400 naming X-Filter', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const header of ['{"country": "us"', 'not json', '']) {
        const res = await app.request('GET', '/v4/regions', { headers: { 'x-filter': header } });
        assert.equal(res.status, 400, `X-Filter: ${header}`);
        assert.equal(res.body.errors[0].field, 'X-Filter');
      }
    });

    test('GET /v4/regions: a field that is not filterable is a 400 naming it', async (t) => {
      const app = await buildTestApp(t, { dialect });
      for (const filter of [{ capabilities: 'Nodes' }, { '+or': [{ country: 'us' }, { resolvers: 'x' }] }]) {
        const res = await app.request('GET', '/v4/regions', { headers: { 'x-filter': JSON.stringify(filter) } });
        assert.equal(res.status, 400, JSON.stringify(filter));
        assert.equal(res.body.errors[0].field, 'X-Filter');
        assert.match(res.body.errors[0].reason, /capabilities|resolvers/);
      }
    });
  });
}
