/**
 * Compares operations of two OpenAPI 3.0 documents: the reference (expected) and the
 * generated one (actual). Schemas are first reduced to a Shape (types, nullability, enum,
 * properties, items, required) with $ref resolved and allOf/anyOf/oneOf folded, so that
 * two spellings of the same thing compare equal.
 */

export type JsonObject = { [key: string]: unknown };

export interface Shape {
  /** Allowed JSON types without `null`; empty when the schema does not constrain the type. */
  types: ReadonlySet<string>;
  nullable: boolean;
  /** Allowed values (as JSON text), or null when there is no enum. */
  enumValues: ReadonlySet<string> | null;
  properties: ReadonlyMap<string, Shape>;
  required: ReadonlySet<string>;
  items: Shape | null;
  readOnly: boolean;
  writeOnly: boolean;
}

export type MismatchKind = 'operation' | 'status' | 'property' | 'type' | 'nullable' | 'enum' | 'required' | 'security';

export interface Mismatch {
  /** `GET /regions/{regionId}` */
  operation: string;
  /** Where: `response.data[].status`, `requestBody.required`, `security.oauth`, or `operation` itself. */
  path: string;
  kind: MismatchKind;
  expected: string;
  actual: string;
}

export interface AllowEntry {
  operation: string;
  path: string;
  reason: string;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const MAX_DEPTH = 40;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const ANY: Shape = {
  types: new Set(),
  nullable: false,
  enumValues: null,
  properties: new Map(),
  required: new Set(),
  items: null,
  readOnly: false,
  writeOnly: false,
};

/** Follows a local JSON pointer (`#/components/schemas/Region/properties/id`). */
export function resolvePointer(doc: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#')) throw new Error(`only local references are supported: ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(key in node)) throw new Error(`unresolvable reference ${ref}`);
    node = node[key];
  }
  return node;
}

/** Reduces a schema to its Shape; `refs` holds the references being expanded (cycles become ANY). */
export function shapeOf(doc: JsonObject, schema: unknown, refs: readonly string[] = []): Shape {
  if (!isObject(schema) || refs.length > MAX_DEPTH) return ANY;
  const parts: Shape[] = [];
  if (typeof schema.$ref === 'string') {
    if (refs.includes(schema.$ref)) return ANY;
    parts.push(shapeOf(doc, resolvePointer(doc, schema.$ref), [...refs, schema.$ref]));
  }
  for (const sub of asArray(schema.allOf)) parts.push(shapeOf(doc, sub, refs));
  const union = [...asArray(schema.anyOf), ...asArray(schema.oneOf)];
  if (union.length) parts.push(unionOf(union.map((sub) => shapeOf(doc, sub, refs))));
  parts.push(ownShape(doc, schema, refs));
  return parts.reduce(intersect);
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The keywords of the schema object itself, ignoring $ref and combinators. */
function ownShape(doc: JsonObject, schema: JsonObject, refs: readonly string[]): Shape {
  let nullable = schema.nullable === true;
  const rawTypes = Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [];
  const types = new Set<string>();
  for (const t of rawTypes) {
    if (t === 'null') nullable = true;
    else types.add(String(t));
  }
  let values: unknown[] | null = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : null;
  if (values?.includes(null)) {
    nullable = true;
    values = values.filter((v) => v !== null);
  }
  const properties = new Map<string, Shape>();
  if (isObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) properties.set(name, shapeOf(doc, sub, refs));
  }
  if (types.size === 0 && properties.size > 0) types.add('object');
  const items = 'items' in schema ? shapeOf(doc, schema.items, refs) : null;
  if (types.size === 0 && items) types.add('array');
  return {
    types,
    nullable,
    enumValues: values ? new Set(values.map((v) => JSON.stringify(v))) : null,
    properties,
    required: new Set(asArray(schema.required).map(String)),
    items,
    readOnly: schema.readOnly === true,
    writeOnly: schema.writeOnly === true,
  };
}

/** allOf (and a schema's own keywords beside a $ref): every constraint holds. */
export function intersect(a: Shape, b: Shape): Shape {
  const properties = new Map(a.properties);
  for (const [name, shape] of b.properties) {
    const prior = properties.get(name);
    properties.set(name, prior ? intersect(prior, shape) : shape);
  }
  return {
    types: intersectTypes(a.types, b.types),
    nullable: a.nullable || b.nullable,
    enumValues: a.enumValues && b.enumValues ? setAnd(a.enumValues, b.enumValues) : (a.enumValues ?? b.enumValues),
    properties,
    required: new Set([...a.required, ...b.required]),
    items: a.items && b.items ? intersect(a.items, b.items) : (a.items ?? b.items),
    readOnly: a.readOnly || b.readOnly,
    writeOnly: a.writeOnly || b.writeOnly,
  };
}

function intersectTypes(a: ReadonlySet<string>, b: ReadonlySet<string>): ReadonlySet<string> {
  if (a.size === 0) return b;
  if (b.size === 0) return a;
  const both = setAnd(a, b);
  // An integer is a number: {number} ∩ {integer} is {integer}.
  if (both.size === 0 && ((a.has('number') && b.has('integer')) || (a.has('integer') && b.has('number')))) {
    return new Set(['integer']);
  }
  return both.size ? both : b;
}

/** anyOf / oneOf: any branch may hold. */
function unionOf(shapes: Shape[]): Shape {
  const first = shapes[0];
  if (!first) return ANY;
  const properties = new Map<string, Shape>();
  for (const s of shapes) {
    for (const [name, shape] of s.properties) {
      const prior = properties.get(name);
      properties.set(name, prior ? unionOf([prior, shape]) : shape);
    }
  }
  const itemShapes = shapes.flatMap((s) => (s.items ? [s.items] : []));
  // A `{type: 'null'}` branch only adds nullability; it must not widen the type to "anything".
  const typed = shapes.filter((s) => s.types.size > 0 || !isNullOnly(s));
  const unconstrained = typed.some((s) => s.types.size === 0);
  return {
    types: unconstrained ? new Set() : new Set(typed.flatMap((s) => [...s.types])),
    nullable: shapes.some((s) => s.nullable),
    enumValues: shapes.every((s) => s.enumValues || isNullOnly(s))
      ? new Set(shapes.flatMap((s) => [...(s.enumValues ?? [])]))
      : null,
    properties,
    required: shapes.map((s) => s.required).reduce((x, y) => setAnd(x, y)),
    items: itemShapes.length ? unionOf(itemShapes) : null,
    readOnly: shapes.every((s) => s.readOnly),
    writeOnly: shapes.every((s) => s.writeOnly),
  };
}

function isNullOnly(s: Shape): boolean {
  return s.nullable && s.types.size === 0 && s.properties.size === 0 && !s.items && !s.enumValues;
}

function setAnd<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): Set<T> {
  return new Set([...a].filter((x) => b.has(x)));
}

function sameSet<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

function describeTypes(s: Shape): string {
  return s.types.size ? [...s.types].sort().join(' | ') : 'any';
}

function describeEnum(values: ReadonlySet<string> | null): string {
  return values ? `[${[...values].sort().join(', ')}]` : 'no enum';
}

function describe(s: Shape): string {
  return `${describeTypes(s)}${s.nullable ? ' (nullable)' : ''}`;
}

type Report = (path: string, kind: MismatchKind, expected: string, actual: string) => void;

/**
 * Compares two response shapes: property names (recursively into objects and array items),
 * types, enums as sets and nullability. Properties the expected side marks writeOnly never
 * appear in a response and are left out; readOnly ones stay.
 */
export function compareResponseShapes(expected: Shape, actual: Shape, path: string, report: Report): void {
  if (expected.types.size > 0 && !sameSet(expected.types, actual.types)) {
    report(path, 'type', describeTypes(expected), describeTypes(actual));
  }
  if (expected.nullable !== actual.nullable) {
    report(path, 'nullable', expected.nullable ? 'nullable' : 'not nullable', actual.nullable ? 'nullable' : 'not nullable');
  }
  if (expected.enumValues || actual.enumValues) {
    if (!expected.enumValues || !actual.enumValues || !sameSet(expected.enumValues, actual.enumValues)) {
      report(path, 'enum', describeEnum(expected.enumValues), describeEnum(actual.enumValues));
    }
  }
  const isObjectLike = (s: Shape) => s.types.has('object') || s.properties.size > 0;
  if (isObjectLike(expected) && isObjectLike(actual)) {
    const visible = [...expected.properties].filter(([, s]) => !s.writeOnly);
    for (const [name, exp] of visible) {
      const act = actual.properties.get(name);
      if (act) compareResponseShapes(exp, act, `${path}.${name}`, report);
      else report(`${path}.${name}`, 'property', `property (${describe(exp)})`, 'absent');
    }
    const expectedNames = new Set(visible.map(([name]) => name));
    for (const [name, act] of actual.properties) {
      if (!expectedNames.has(name)) report(`${path}.${name}`, 'property', 'absent', `property (${describe(act)})`);
    }
  }
  if (expected.items && actual.items) compareResponseShapes(expected.items, actual.items, `${path}[]`, report);
  else if (expected.items && actual.types.has('array'))
    report(`${path}[]`, 'type', describe(expected.items), 'unspecified items');
}

/** The required fields of a request body; readOnly properties are never sent, so they do not count. */
export function requiredRequestFields(shape: Shape | null): Set<string> {
  if (!shape) return new Set();
  return new Set([...shape.required].filter((name) => !shape.properties.get(name)?.readOnly));
}

export interface OperationRef {
  method: (typeof HTTP_METHODS)[number];
  path: string;
  op: JsonObject;
}

/** Every operation of a document. */
export function operationsOf(doc: JsonObject): OperationRef[] {
  const out: OperationRef[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (isObject(op)) out.push({ method, path, op });
    }
  }
  return out;
}

export function operationName(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** `/a/{x}/b` and `/a/{y}/b` name the same path. */
function pathKey(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}');
}

function findOperation(doc: JsonObject, method: string, path: string): OperationRef | null {
  const all = operationsOf(doc).filter((o) => o.method === method);
  return all.find((o) => o.path === path) ?? all.find((o) => pathKey(o.path) === pathKey(path)) ?? null;
}

function jsonBodySchema(holder: unknown): unknown {
  if (!isObject(holder) || !isObject(holder.content)) return undefined;
  const json = holder.content['application/json'];
  return isObject(json) ? json.schema : undefined;
}

function successStatus(op: JsonObject): string | null {
  const responses = isObject(op.responses) ? Object.keys(op.responses) : [];
  const ok = responses.filter((code) => /^2\d\d$/.test(code)).sort();
  return ok.includes('200') ? '200' : (ok[0] ?? null);
}

function responseObject(doc: JsonObject, op: JsonObject, status: string): unknown {
  const responses = isObject(op.responses) ? op.responses : {};
  const res = responses[status];
  return isObject(res) && typeof res.$ref === 'string' ? resolvePointer(doc, res.$ref) : res;
}

function requestBodyObject(doc: JsonObject, op: JsonObject): unknown {
  const body = op.requestBody;
  return isObject(body) && typeof body.$ref === 'string' ? resolvePointer(doc, body.$ref) : body;
}

/** The oauth scopes an operation asks for, or null when it has no security (public). */
export function oauthScopes(op: JsonObject): Set<string> | null {
  const security = asArray(op.security).filter(isObject);
  if (security.length === 0) return null;
  const oauth = security.find((s) => 'oauth' in s);
  return new Set(asArray(oauth?.oauth).map(String));
}

function describeScopes(scopes: Set<string> | null): string {
  if (scopes === null) return 'public (no security)';
  return scopes.size ? [...scopes].sort().join(' + ') : 'any token (no scope)';
}

/** Every difference between the generated operation and the reference's. */
export function compareOperation(reference: JsonObject, actual: JsonObject, method: string, path: string): Mismatch[] {
  const operation = operationName(method, path);
  const out: Mismatch[] = [];
  const report: Report = (where, kind, expected, got) => out.push({ operation, path: where, kind, expected, actual: got });
  const mine = operationsOf(actual).find((o) => o.method === method && o.path === path);
  if (!mine) throw new Error(`${operation} is not in the generated document`);
  const theirs = findOperation(reference, method, path);
  if (!theirs) {
    report('operation', 'operation', 'an operation of the reference', 'not in the reference');
    return out;
  }
  if (theirs.path !== path) report('operation', 'operation', `path ${theirs.path}`, `path ${path}`);

  const status = successStatus(mine.op);
  const theirResponses = isObject(theirs.op.responses) ? theirs.op.responses : {};
  if (!status) {
    report('responses', 'status', `a ${successStatus(theirs.op) ?? '2xx'} response`, 'no success response');
  } else if (!(status in theirResponses)) {
    report('responses', 'status', `success status ${successStatus(theirs.op)}`, `success status ${status}`);
  } else {
    const expSchema = jsonBodySchema(responseObject(reference, theirs.op, status));
    const actSchema = jsonBodySchema(responseObject(actual, mine.op, status));
    if (expSchema !== undefined && actSchema === undefined) report('response', 'type', 'a JSON body', 'no body schema');
    else if (expSchema === undefined && actSchema !== undefined) report('response', 'type', 'no body', 'a JSON body schema');
    else if (expSchema !== undefined) {
      compareResponseShapes(shapeOf(reference, expSchema), shapeOf(actual, actSchema), 'response', report);
    }
  }

  const expBody = jsonBodySchema(requestBodyObject(reference, theirs.op));
  const actBody = jsonBodySchema(requestBodyObject(actual, mine.op));
  const expRequired = requiredRequestFields(expBody === undefined ? null : shapeOf(reference, expBody));
  const actRequired = requiredRequestFields(actBody === undefined ? null : shapeOf(actual, actBody));
  if (!sameSet(expRequired, actRequired)) {
    const list = (s: Set<string>) => (s.size ? [...s].sort().join(', ') : 'none');
    report('requestBody.required', 'required', list(expRequired), list(actRequired));
  }

  const expScopes = oauthScopes(theirs.op);
  const actScopes = oauthScopes(mine.op);
  const scopesDiffer = expScopes === null || actScopes === null ? expScopes !== actScopes : !sameSet(expScopes, actScopes);
  if (scopesDiffer) report('security.oauth', 'security', describeScopes(expScopes), describeScopes(actScopes));
  return out;
}

export function formatMismatch(m: Mismatch): string {
  return `${m.operation} at ${m.path} [${m.kind}]: reference has ${m.expected}; project has ${m.actual}`;
}

export function isAllowed(m: Mismatch, allow: readonly AllowEntry[]): boolean {
  return allow.some((a) => a.operation === m.operation && a.path === m.path);
}
