import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { addFields, pgAddFields } from '../../src/db/pg-result-fields.ts';

// pg's Result, constructed as pg's queries construct it: rows as objects, with the service's types or pg's own.
const Result = createRequire(import.meta.url)('pg/lib/result.js') as new (
  rowMode?: string,
  types?: unknown,
) => {
  fields: unknown[];
  _parsers: unknown[];
  parseRow(values: (string | null)[]): Record<string, unknown>;
};

const toNumber = (v: string) => Number(v);
const asText = (v: string) => v;
const serviceTypes = {
  getTypeParser(oid: number) {
    return oid === 20 ? toNumber : asText;
  },
};

const VIEW = ['id', 'account_id', 'label', 'status', 'created', 'alerts_cpu', 'watchdog_enabled', 'tag_list'];
const field = (name: string, dataTypeID: number, format?: string) => ({
  name,
  tableID: 0,
  columnID: 0,
  dataTypeID,
  dataTypeSize: -1,
  dataTypeModifier: -1,
  ...(format ? { format } : {}),
});

const CASES = {
  'a node view': VIEW.map((name, i) => field(name, i % 2 ? 25 : 20, 'text')),
  'a name twice': [field('a', 23), field('b', 25), field('a', 25)],
  'a field named __proto__': [field('__proto__', 25), field('constructor', 23), field('x', 16)],
  'no fields': [],
};

for (const [name, fields] of Object.entries(CASES)) {
  test(`pg's row description read as pg reads it: ${name}`, () => {
    for (const types of [serviceTypes, undefined]) {
      const theirs = new Result(undefined, types);
      const ours = new Result(undefined, types);
      pgAddFields.call(theirs as never, fields);
      addFields.call(ours as never, fields);
      assert.equal(ours.fields, theirs.fields);
      assert.deepEqual(
        ours._parsers?.map((p) => typeof p),
        theirs._parsers?.map((p) => typeof p),
      );
      if (types) assert.deepEqual(ours._parsers, theirs._parsers, 'the same parser a field');
      const values = fields.map((_, i) => (i === 1 ? null : String(i + 1)));
      const [a, b] = [ours.parseRow(values), theirs.parseRow(values)];
      assert.deepEqual(Object.keys(a), Object.keys(b));
      assert.deepEqual({ ...a }, { ...b });
      assert.equal(Object.getPrototypeOf(a), Object.getPrototypeOf(b));
      assert.equal(Object.hasOwn(a, '__proto__'), Object.hasOwn(b, '__proto__'));
      if (Object.hasOwn(b, '__proto__')) assert.equal(Object.getOwnPropertyDescriptor(a, '__proto__')?.value, '1');
    }
  });
}
