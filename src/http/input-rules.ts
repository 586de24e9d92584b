import { Stream } from 'node:stream';
import type { ErrorObject } from 'ajv';
import type { FastifyRequest } from 'fastify';
import { fail } from '../errors.ts';

/**
 * Rules every request obeys, applied here once rather than route by route: objects nested in a
 * request body are closed, integers in paths and queries are written the one canonical way,
 * and no text holds the NUL character.
 */

type Schema = Record<string, unknown>;

const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is data, not a schema. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);
/** Keywords whose value maps names (or patterns) to schemas: the schemas of what an object holds. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);
/** Keywords whose schemas describe the same value as their parent (alternatives of one object). */
const SAME_VALUE = new Set(['anyOf', 'oneOf', 'not', 'if', 'then', 'else']);

/**
 * Field names a body may hold besides its own: those of the object the operation answers with, so
 * that a client may send back an object it read (`GET`, change a field, `PUT`). They are ignored.
 * Kept under a symbol, so that neither the validator nor the API document sees the mark itself.
 */
export const ECHOED_FIELDS = Symbol('echoed fields');

type BodySchema = Schema & { [ECHOED_FIELDS]?: readonly string[] };

/** The names of the properties of the operation's success answer (`200`), when it is an object. */
function answerFields(response: unknown): string[] {
  const ok = isRecord(response) ? (response[200] ?? response['200'] ?? response['2xx']) : undefined;
  return isRecord(ok) && isRecord(ok.properties) ? Object.keys(ok.properties) : [];
}

/** A route's body schema marked with the fields of its answer that a client may send back. */
export function withEchoedFields(body: unknown, response: unknown): unknown {
  if (!isRecord(body)) return body;
  const own = isRecord(body.properties) ? body.properties : {};
  const echoed = answerFields(response).filter((name) => !(name in own));
  return echoed.length ? ({ ...body, [ECHOED_FIELDS]: echoed } satisfies BodySchema) : body;
}

/**
 * A copy of a body schema in which every object that does not say which extra keys it takes
 * (`additionalProperties`) takes none, at any depth: it says which keys are known, so that the
 * others (`lable`, `global.a`, `devices.sdz`) are dropped and named before validation
 * (lenient-body.ts), and validation stays closed behind it. What a client reads and may send back
 * is not unknown: the read-only fields an object declares, and at the top level the fields of the
 * operation's answer (`withEchoedFields`); they are taken with any value and ignored. A free-form
 * map says so (`Type.Record`, or `additionalProperties: true`).
 */
export function closeObjects(
  schema: unknown,
  echoed: readonly string[] = (schema as BodySchema)?.[ECHOED_FIELDS] ?? [],
): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closeObjects(s, echoed));
  if (!isRecord(schema)) return schema;
  // Closing each branch of an intersection would refuse the keys of the others.
  if ('allOf' in schema) throw new Error('request body schemas may not use allOf: declare the object whole');
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, closeObjects(s, [])]));
    } else out[key] = closeObjects(value, SAME_VALUE.has(key) ? echoed : []);
  }
  const type = out.type;
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object')) || 'properties' in out;
  if (isObject && out.additionalProperties === undefined && out.patternProperties === undefined) {
    out.additionalProperties = false;
    if (echoed.length) {
      const own = isRecord(out.properties) ? out.properties : {};
      out.properties = { ...Object.fromEntries(echoed.map((name) => [name, {}])), ...own };
    }
  }
  return out;
}

/** A decimal integer as written by anyone who means one: no sign but `-`, no leading zero, no spaces, no exponent. */
const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/**
 * Path and query values arrive as text and the validator turns numeric text into numbers, which
 * would read `0x1`, `+1`, `01`, ` 1` and `1e0` as 1. This wraps a params or querystring validator so
 * that an integer parameter holding anything but a canonical decimal integer fails as not an integer.
 */
export function canonicalIntegers(schema: unknown, validate: Validator): Validator {
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  const integers = Object.entries(properties).filter(([, s]) => isRecord(s) && s.type === 'integer');
  if (integers.length === 0) return validate;
  const check: Validator = (data) => {
    const bad: ErrorObject[] = [];
    if (isRecord(data)) {
      for (const [name, propertySchema] of integers) {
        const raw = data[name];
        const values = Array.isArray(raw) ? raw : [raw];
        if (values.some((v) => typeof v === 'string' && !CANONICAL_INTEGER.test(v))) {
          bad.push({
            keyword: 'type',
            instancePath: `/${name}`,
            schemaPath: `#/properties/${name}/type`,
            params: { type: 'integer' },
            message: 'must be integer',
            parentSchema: propertySchema as Schema,
          });
        }
      }
    }
    validate(data);
    const errors = [...bad, ...(validate.errors ?? []).filter((e) => !bad.some((b) => b.instancePath === e.instancePath))];
    check.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  };
  return check;
}

/** How deep a request body may nest objects and arrays: far beyond any route's schema, far below the stack's limit. */
export const MAX_BODY_DEPTH = 64;

/**
 * Whether a parsed value nests objects or arrays deeper than `limit` (the top-level object is depth 1).
 * Walked with its own stack, so that a hostile depth cannot overflow the call stack here; every
 * recursive walker after it (findNul, lenient-body, the validator) sees only values within the limit.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

/** Where in a parsed value the NUL character occurs (in a key or a string), as a field path; undefined if nowhere. */
export function findNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findNul(item, `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  // A streamed body (image uploads) is not looked into.
  if (!isRecord(value) || value instanceof Stream) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return field.replaceAll('\u0000', '\\u0000');
    const found = findNul(item, field);
    if (found !== undefined) return found;
  }
  return undefined;
}

const NUL_REASON = 'May not contain the NUL character (\\u0000)';

/**
 * No text the API stores or looks up holds the NUL character, and PostgreSQL refuses any statement
 * carrying one: refuse it in the path (it names nothing: 404), the query and the body (400 naming
 * the field), before validation, on both databases alike.
 */
export function rejectNulCharacters(request: FastifyRequest): void {
  if (findNul(request.params) !== undefined) throw fail.notFound();
  const inQuery = findNul(request.query);
  if (inQuery !== undefined) throw fail.badRequest(NUL_REASON, inQuery || 'query');
  const inBody = findNul(request.body);
  if (inBody !== undefined) throw fail.badRequest(NUL_REASON, inBody || 'body');
}
