import fc from 'fast-check';
import { type Case, type Operation, type Setting, urlOf, validates } from './bad-input-request.ts';
import { type Schema, sample } from './bad-input-values.ts';

/**
 * Bad path parameters, query values and X-Filter headers for one operation: non-canonical,
 * out-of-range, NUL-holding, malformed and huge values next to the real ones, plus a few strings
 * from fast-check with fixed seeds.
 */

const JUNK_PATH = fc.string({ minLength: 1, maxLength: 10 }).filter((s) => !/^\d+$/.test(s));
const JUNK_QUERY = fc.string({ maxLength: 12 });

/** Raw path segments that are not the canonical form of a real id: all must be refused (404, or 400). */
function badIds(real: string, site: string): [string, string][] {
  const v = Number(real);
  return [
    ['non-canonical', `0x${v.toString(16)}`],
    ['non-canonical', `+${real}`],
    ['non-canonical', `0${real}`],
    ['non-canonical', `%20${real}`],
    ['non-canonical', `${real}%20`],
    ['non-canonical', `${real}%09`],
    ['non-canonical', `${real}.0`],
    ['non-canonical', `${real}e0`],
    ['non-canonical', `-0`],
    ['NUL', `${real}%00`],
    ['NUL', `%00${real}`],
    ['out of range', '-1'],
    ['out of range', '1.5'],
    ['out of range', String(2 ** 31)],
    ['out of range', String(2 ** 53)],
    ['out of range', '1e308'],
    ['out of range', '9'.repeat(40)],
    ['not a number', 'null'],
    ['not a number', 'true'],
    ['not a number', 'Infinity'],
    ['not a number', '%EF%BC%91'],
    ['malformed escape', '%ZZ'],
    ['huge', '1'.repeat(300)],
    ['huge', 'x'.repeat(100_000)],
    ...sample(JUNK_PATH, site, 2).map((s): [string, string] => ['random', encodeURIComponent(s)]),
  ];
}

/** Raw path segments next to a real string id (a username, an address, an image id): all must be refused. */
function badNames(real: string): [string, string][] {
  const enc = encodeURIComponent(real);
  return [
    ['non-canonical', `%20${enc}`],
    ['non-canonical', `${enc}%20`],
    ['NUL', `${enc}%00`],
    ['NUL', '%00'],
    ['malformed escape', '%ZZ'],
    ['huge', 'x'.repeat(300)],
    ['huge', 'x'.repeat(100_000)],
  ];
}

export function pathCases(op: Operation, setting: Setting): Case[] {
  const cases: Case[] = [];
  for (const { name, schema } of op.pathParams) {
    const real = setting.params[name] ?? '';
    const site = `${op.operationId} path ${name}`;
    const isId = schema.type === 'integer' && /Id$/.test(name);
    const bad = schema.type === 'integer' ? badIds(real, site) : badNames(real);
    for (const [kind, raw] of bad) {
      // year and month are not ids: only what their schema refuses must be refused.
      let expect: Case['expect'] = 'refuse';
      if (!isId && schema.type === 'integer') {
        const decoded = raw.includes('%') ? safeDecode(raw) : raw;
        expect =
          decoded !== undefined && validates(objectOf(name, schema), 'querystring', { [name]: decoded }) ? 'any' : 'refuse';
      }
      cases.push({
        cls: `path ${isId ? 'id' : 'param'}: ${kind}`,
        method: op.method,
        url: urlOf(op, setting, { [name]: raw }),
        headers: {},
        expect,
      });
    }
  }
  return cases;
}

function safeDecode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

function objectOf(name: string, schema: Schema): Schema {
  return { type: 'object', properties: { [name]: schema } };
}

const QUERY_VALUES: [string, string][] = [
  ['empty', ''],
  ['not a number', 'abc'],
  ['not a number', 'null'],
  ['out of range', '-1'],
  ['out of range', '0'],
  ['out of range', '1.5'],
  ['out of range', String(2 ** 31)],
  ['out of range', String(2 ** 53)],
  ['out of range', '100000000000000000'],
  ['out of range', '1e308'],
  ['out of range', '-1e308'],
  ['not a number', 'Infinity'],
  ['non-canonical', '0x10'],
  ['non-canonical', '+1'],
  ['NUL', '%00'],
  ['NUL', '1%00'],
  ['huge', 'x'.repeat(100_000)],
];

export function queryCases(op: Operation, setting: Setting): Case[] {
  const cases: Case[] = [];
  for (const { name, schema } of op.queryParams) {
    const values: [string, string, unknown][] = QUERY_VALUES.map(([kind, raw]) => [kind, `${name}=${raw}`, safeDecode(raw)]);
    values.push(['repeated', `${name}=1&${name}=2`, ['1', '2']]);
    for (const s of sample(JUNK_QUERY, `${op.operationId} query ${name}`, 2)) {
      values.push(['random', `${name}=${encodeURIComponent(s)}`, s]);
    }
    for (const [kind, query, value] of values) {
      const valid = validates(objectOf(name, schema), 'querystring', { [name]: value });
      cases.push({
        cls: `query: ${kind}`,
        method: op.method,
        url: urlOf(op, setting, {}, query),
        headers: {},
        expect: valid ? 'any' : 'refuse',
      });
    }
  }
  return cases;
}

const FILTERS: [string, string, Case['expect']][] = [
  ['not JSON', 'not json', 'refuse'],
  ['not JSON', '{"label":', 'refuse'],
  ['not an object', '[]', 'any'],
  ['not an object', '"x"', 'any'],
  ['out of range', '{"id": 2147483648}', 'any'],
  ['out of range', '{"id": 1e308}', 'any'],
  ['out of range', '{"id": {"+gt": 9007199254740993}}', 'any'],
  ['wrong type', '{"id": "1"}', 'any'],
  ['wrong type', '{"label": {"a": 1}}', 'any'],
  ['NUL', '{"label": "a\\u0000b"}', 'any'],
  ['NUL', '{"label": {"+contains": "\\u0000"}}', 'any'],
  ['NUL', '{"a\\u0000": 1}', 'any'],
  ['operator', '{"+order_by": "id", "+order": "sideways"}', 'any'],
  ['operator', '{"+or": [{"+and": [{"id": 1}]}], "+order_by": "nope"}', 'any'],
  ['huge', `{"label": "${'x'.repeat(9000)}"}`, 'refuse'],
];

export function filterCases(op: Operation, setting: Setting): Case[] {
  if (op.method !== 'GET' || !op.queryParams.some((p) => p.name === 'page')) return [];
  return FILTERS.map(([kind, filter, expect]) => ({
    cls: `X-Filter: ${kind}`,
    method: op.method,
    url: urlOf(op, setting),
    headers: { 'x-filter': filter },
    expect,
  }));
}
