import fc from 'fast-check';
import { fieldPath } from '../../src/http/validation.ts';

/**
 * Request bodies with one field spoiled: a valid body of the operation with one value, at any
 * depth, replaced by a wrong type, a null, a huge or NUL-holding string, an out-of-range number,
 * or an oversized array; and a valid body with an unknown key added, at any depth, which the
 * server ignores and names in a Warning header.
 */

export type Schema = Record<string, unknown>;
type Path = (string | number)[];

export interface BodyValue {
  kind: string;
  body: Record<string, unknown>;
  /** The spoiled field, as the API names fields (`devices.sda.disk_id`, `interfaces[0].label`). */
  field: string;
  /** Refused whatever the schema says (NUL bytes). */
  mustRefuse: boolean;
  /** An unknown key added at this field path: ignored, and named in the answer's Warning header. */
  ignored?: string;
}

const SEED = 20_260_607;

/** A fixed seed for one place, so adding a place leaves the others' values alone. */
function seedFor(site: string): number {
  let h = 0x811c9dc5;
  for (const ch of site) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (SEED ^ h) >>> 0;
}

/** `count` values of `arb`, the same ones on every run. */
export function sample<T>(arb: fc.Arbitrary<T>, site: string, count: number): T[] {
  return fc.sample(arb, { seed: seedFor(site), numRuns: count });
}

export const UNKNOWN_KEY = 'zz_unknown';

const WRONG_TYPES: Record<string, unknown[]> = {
  string: [123, true, {}],
  integer: ['1', true, []],
  number: ['1', true, []],
  boolean: ['true', 0, {}],
  array: ['x', {}, 1],
  object: ['x', [], 1],
};
const NUMBERS = [2 ** 31, 2 ** 53, -1, -(2 ** 31) - 1, 1e308, 1.5];
const HUGE_STRING = 'x'.repeat(100_000);
const ANY_STRING = fc.string({ unit: 'binary', maxLength: 8 });
const ANY_JSON = fc.jsonValue({ maxDepth: 2 });

export function hasRequired(schema: Schema): boolean {
  return Array.isArray(schema.required) && schema.required.length > 0;
}

function properties(schema: Schema): Record<string, Schema> | undefined {
  return schema.properties as Record<string, Schema> | undefined;
}

/** The smallest value the schema accepts (ids of real objects for fields named like them). */
function minimal(schema: Schema, name: string | number, refs: Record<string, number>): unknown {
  const values = (schema.enum as unknown[] | undefined)?.filter((v) => v !== null);
  if (values?.length) return values[0];
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        ((schema.required ?? []) as string[]).map((p) => [p, minimal(properties(schema)?.[p] ?? {}, p, refs)]),
      );
    case 'array':
      return Number(schema.minItems ?? 0) > 0 ? [minimal(schema.items as Schema, 0, refs)] : [];
    case 'integer':
    case 'number':
      return refs[String(name)] ?? refs.node_id ?? Number(schema.minimum ?? 0);
    case 'string':
      return 'a'.repeat(Math.max(3, Number(schema.minLength ?? 0)));
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** `body` with the value at `path` replaced; `schemas[i]` is the schema of the container of `path[i]`. */
function withValue(body: Record<string, unknown>, path: Path, schemas: Schema[], value: unknown, refs: Record<string, number>) {
  let container = body as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i += 1) {
    const key = path[i] as string | number;
    const schema = schemas[i + 1] as Schema;
    const current = container[key];
    if (current === null || typeof current !== 'object') {
      container[key] = schema.type === 'array' ? [minimal(schema.items as Schema, 0, refs)] : minimal(schema, key, refs);
    } else if (Array.isArray(current) && current.length === 0) {
      current.push(minimal(schema.items as Schema, 0, refs));
    }
    container = container[key] as Record<string | number, unknown>;
  }
  container[path[path.length - 1] as string | number] = value;
  return body;
}

interface Spoil {
  kind: string;
  value: unknown;
  mustRefuse?: boolean;
  unknownKey?: boolean;
}

function spoils(schema: Schema, path: Path, site: string, refs: Record<string, number>): Spoil[] {
  const type = String(schema.type);
  const out: Spoil[] = (WRONG_TYPES[type] ?? []).map((value) => ({ kind: 'wrong type', value }));
  if (schema.nullable !== true) out.push({ kind: 'null', value: null });
  if (type === 'string') {
    out.push({ kind: 'huge string', value: HUGE_STRING });
    out.push({ kind: 'NUL in a string', value: 'a\u0000b', mustRefuse: true });
    const [a = '', b = ''] = sample(ANY_STRING, `${site} NUL`, 2);
    out.push({ kind: 'NUL in a string', value: `${a}\u0000${b}`, mustRefuse: true });
  }
  if (type === 'integer' || type === 'number') {
    for (const value of NUMBERS) out.push({ kind: 'out-of-range number', value });
  }
  if (type === 'array') {
    out.push({ kind: 'huge array', value: new Array(10_001).fill(minimal(schema.items as Schema, 0, refs)) });
  }
  if (type === 'object' && !properties(schema)) {
    out.push({ kind: 'free-form object', value: { k: 'v\u0000', 'k\u0000': HUGE_STRING, n: 2 ** 53 } });
  }
  if (type === 'object' && properties(schema)) {
    const value = { ...(minimal(schema, String(path[path.length - 1]), refs) as object), [UNKNOWN_KEY]: 1 };
    out.push({ kind: 'unknown key in a nested object', value, unknownKey: true });
  }
  for (const value of sample(ANY_JSON, `${site} random`, 1)) out.push({ kind: 'random JSON', value });
  return out;
}

/** Every spoiled body of an operation: one value at a time, over every field at every depth. */
export function bodyVariants(
  root: Schema,
  validBody: () => Record<string, unknown>,
  refs: Record<string, number>,
  site: string,
): BodyValue[] {
  const out: BodyValue[] = [];
  const visit = (schema: Schema, path: Path, schemas: Schema[]) => {
    const field = fieldPath(`/${path.join('/')}`);
    for (const spoil of spoils(schema, path, `${site} ${field}`, refs)) {
      out.push({
        kind: spoil.kind,
        body: withValue(validBody(), path, schemas, spoil.value, refs),
        field: spoil.unknownKey ? `${field}.${UNKNOWN_KEY}` : field,
        mustRefuse: spoil.mustRefuse === true,
        ...(spoil.unknownKey ? { ignored: `${field}.${UNKNOWN_KEY}` } : {}),
      });
    }
    children(schema, path, schemas);
  };
  const children = (schema: Schema, path: Path, schemas: Schema[]) => {
    const props = properties(schema);
    if (schema.type === 'object' && props) {
      // Siblings of one shape (devices.sda ... sdh) are spoiled once.
      const seen = new Set<string>();
      for (const [name, child] of Object.entries(props)) {
        const shape = JSON.stringify(child);
        if (seen.has(shape)) continue;
        seen.add(shape);
        visit(child, [...path, name], [...schemas, schema]);
      }
    }
    if (schema.type === 'array' && schema.items) visit(schema.items as Schema, [...path, 0], [...schemas, schema]);
  };
  children(root, [], []);
  out.push({
    kind: 'unknown key at the top level',
    body: { ...validBody(), [UNKNOWN_KEY]: 1 },
    field: UNKNOWN_KEY,
    mustRefuse: false,
    ignored: UNKNOWN_KEY,
  });
  return out;
}
