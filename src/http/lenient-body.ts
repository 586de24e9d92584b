import type { FastifyReply, FastifyRequest } from 'fastify';
import { closeObjects } from './input-rules.ts';

/**
 * What clients add to a request body is taken leniently, for every route in one place:
 * - a key the body's schema does not know, at any depth, is dropped before validation and named in
 *   a `Warning` header (later revisions of the API add fields that current clients send, and
 *   automation tools put their own options into bodies);
 * - `null` for an optional field that does not take null is "not given" (on an update: unchanged);
 *   a field that takes null keeps it (on an update: cleared), and a required one is still refused.
 * Known fields keep their full validation: what is left is checked by the route's schema.
 */

type Schema = Record<string, unknown>;

const isRecord = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The closed body schema of each route schema: made once per schema object. */
const closedSchemas = new WeakMap<object, Schema>();

function closedBodySchema(schema: object): Schema {
  let closed = closedSchemas.get(schema);
  if (!closed) {
    closed = closeObjects(schema) as Schema;
    closedSchemas.set(schema, closed);
  }
  return closed;
}

/** The schema and its alternatives (`anyOf`, `oneOf`): together they say which keys an object may hold. */
function alternatives(schema: Schema): Schema[] {
  const out = [schema];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const b of branches) if (isRecord(b)) out.push(...alternatives(b));
  }
  return out;
}

function takesNull(schema: Schema): boolean {
  if (schema.nullable === true) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  // A schema that says nothing of the value (a field echoed back from an answer) takes anything.
  if (type === undefined && !('enum' in schema) && !('const' in schema) && !('anyOf' in schema) && !('oneOf' in schema)) {
    return true;
  }
  return alternatives(schema)
    .slice(1)
    .some((s) => takesNull(s));
}

const patterns = new Map<string, RegExp>();

/** A `patternProperties` key compiled once. */
function patternOf(pattern: string): RegExp {
  let re = patterns.get(pattern);
  if (!re) {
    re = new RegExp(pattern, 'u');
    patterns.set(pattern, re);
  }
  return re;
}

/** The schema for a key of an object: its own property, a matching pattern, or what extra keys take; undefined: unknown. */
function schemaOfKey(schemas: Schema[], key: string): Schema | true | undefined {
  for (const s of schemas) {
    const props = s.properties;
    if (isRecord(props) && Object.hasOwn(props, key)) {
      const p = props[key];
      return isRecord(p) ? p : true;
    }
  }
  for (const s of schemas) {
    const patterns = s.patternProperties;
    if (isRecord(patterns)) {
      for (const [pattern, p] of Object.entries(patterns)) {
        if (patternOf(pattern).test(key)) return isRecord(p) ? p : true;
      }
    }
    const extra = s.additionalProperties;
    if (extra === true) return true;
    if (isRecord(extra)) return extra;
  }
  return undefined;
}

function required(schemas: Schema[], key: string): boolean {
  return schemas.some((s) => Array.isArray(s.required) && s.required.includes(key));
}

const MAX_NAMED = 20;

/** Drops unknown keys and nulls that mean "not given" from `value`, in place; returns the paths of the keys it dropped as unknown. */
export function dropUnknownFields(schema: Schema, value: unknown, path = '', ignored: string[] = []): string[] {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (isRecord(items)) for (const [i, item] of value.entries()) dropUnknownFields(items, item, `${path}[${i}]`, ignored);
    return ignored;
  }
  if (!isRecord(value)) return ignored;
  const schemas = alternatives(schema);
  // A schema that says nothing of an object's keys (a field echoed from an answer) takes any.
  if (!schemas.some((s) => 'properties' in s || 'patternProperties' in s || 'additionalProperties' in s)) return ignored;
  for (const key of Object.keys(value)) {
    const field = path ? `${path}.${key}` : key;
    const keySchema = schemaOfKey(schemas, key);
    if (keySchema === undefined) {
      delete value[key];
      ignored.push(field);
      continue;
    }
    if (keySchema === true) continue;
    if (value[key] === null) {
      if (!takesNull(keySchema) && !required(schemas, key)) delete value[key];
      continue;
    }
    dropUnknownFields(keySchema, value[key], field, ignored);
  }
  return ignored;
}

/** A field name as it may appear in a header: printable ASCII, quotes and backslashes escaped, not too long. */
function headerSafe(name: string): string {
  const printable = name.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, (c) => `\\${c}`);
  return printable.length > 64 ? `${printable.slice(0, 61)}...` : printable;
}

/** The `Warning` header (RFC 7234, code 299: a persistent warning) naming the fields a request's body held and the server ignored. */
export function ignoredFieldsWarning(fields: readonly string[]): string {
  const named = fields.slice(0, MAX_NAMED).map(headerSafe);
  const more = fields.length > MAX_NAMED ? ` and ${fields.length - MAX_NAMED} more` : '';
  return `299 - "ignored unknown fields: ${named.join(', ')}${more}"`;
}

/** The preValidation hook: the body as its route's schema knows it. */
export function lenientBody(request: FastifyRequest, reply: FastifyReply): void {
  const schema = request.routeOptions.schema?.body;
  if (!isRecord(schema) || !isRecord(request.body)) return;
  const ignored = dropUnknownFields(closedBodySchema(schema), request.body);
  if (ignored.length > 0) reply.header('warning', ignoredFieldsWarning(ignored));
}
