import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorItem } from '../errors.ts';
import { canonicalIntegers, closeObjects, type Validator } from './input-rules.ts';

// ajv-formats is CommonJS and its default export does not survive ESM interop; require it.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv) => Ajv;

/** Schema keyword holding a person-readable reason for a failed `pattern`. */
export const PATTERN_REASON = 'x-pattern-reason';

/**
 * Schema keyword marking a path parameter that is a value rather than a name (a stats month): out
 * of range it is a 400 naming it. Any other path parameter that does not fit names nothing: 404.
 */
export const PATH_VALUE = 'x-path-value';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    useDefaults: true,
    strict: false,
    ...options,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: PATTERN_REASON, schemaType: 'string' });
  ajv.addKeyword({ keyword: PATH_VALUE, schemaType: 'boolean' });
  return ajv;
}

// Bodies are checked as sent (a string is never turned into a number), their nested objects closed;
// path and query values arrive as text, so they are coerced, from canonical integers only.
const bodyAjv = makeAjv({ coerceTypes: false, removeAdditional: false });
const textAjv = makeAjv({ coerceTypes: 'array', removeAdditional: false });

/**
 * Compiled validators by the text of their schema: what ajv makes depends on nothing else (it reads
 * no symbol keys), and an app built again in the same process (a test, a restart in place) reuses
 * them instead of compiling every route's schemas anew.
 */
const compiled = new Map<string, ValidateFunction>();

function compileOnce(ajv: Ajv, kind: string, schema: object): ValidateFunction {
  const key = `${kind}:${JSON.stringify(schema)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/**
 * A check compiled when it first runs: a process compiles the schemas of the routes it is asked for,
 * not all of them at start (that was a fifth of a start's CPU). Fastify reads `errors` after a call.
 */
function compiledOnFirstUse(compile: () => Validator): Validator {
  let compiled: Validator | undefined;
  const check: Validator = (data) => {
    compiled ??= compile();
    const valid = compiled(data);
    check.errors = compiled.errors;
    return valid;
  };
  return check;
}

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  compiledOnFirstUse(() => {
    if (httpPart === 'body') return compileOnce(bodyAjv, 'body', closeObjects(schema) as object);
    const validate = compileOnce(textAjv, 'text', schema);
    return httpPart === 'params' || httpPart === 'querystring' ? canonicalIntegers(schema, validate) : validate;
  });

/** Whether a failed params check is a 404 (a path naming nothing) rather than a 400 about a path value. */
export function namesNothing(errors: ErrorObject[]): boolean {
  return errors.some((e) => (e.parentSchema as Record<string, unknown> | undefined)?.[PATH_VALUE] !== true);
}

/** `/rules/inbound/0/ports` -> `rules.inbound[0].ports` */
export function fieldPath(pointer: string, extra?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

const ARTICLE = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);
const TYPE_NAMES: Record<string, string> = {
  integer: 'integer',
  number: 'number',
  string: 'string',
  boolean: 'boolean (true or false)',
  object: 'JSON object',
  array: 'array',
  null: 'null',
};
const FORMAT_NAMES: Record<string, string> = {
  email: 'a valid email address',
  'date-time': 'an ISO 8601 date-time',
  date: 'a date (YYYY-MM-DD)',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  uri: 'a URL',
  url: 'a URL',
  uuid: 'a UUID',
};

function lengthReason(schema: Record<string, unknown>, unit: string): string {
  const min = schema.minLength ?? schema.minItems;
  const max = schema.maxLength ?? schema.maxItems;
  if (min !== undefined && max !== undefined) return `Must be ${min}-${max} ${unit}`;
  if (min !== undefined) return `Must be at least ${min} ${unit}`;
  return `Must be at most ${max} ${unit}`;
}

function rangeReason(schema: Record<string, unknown>): string {
  const min = schema.minimum;
  const max = schema.maximum;
  if (min !== undefined && max !== undefined) return `Must be between ${min} and ${max}`;
  if (min !== undefined) return `Must be at least ${min}`;
  return `Must be at most ${max}`;
}

function reasonOf(e: ErrorObject): string {
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'type': {
      const types = String(e.params.type).split(',');
      return `Must be ${types.map((t) => ARTICLE(TYPE_NAMES[t] ?? t)).join(' or ')}`;
    }
    case 'minLength':
    case 'maxLength':
      return lengthReason(parent, 'characters');
    case 'minItems':
    case 'maxItems':
      return lengthReason(parent, 'items');
    case 'minimum':
    case 'maximum':
      return rangeReason(parent);
    case 'exclusiveMinimum':
      return `Must be greater than ${e.params.limit}`;
    case 'enum':
      return `Must be one of: ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `Must be ${JSON.stringify(e.params.allowedValue)}`;
    case 'format':
      return `Must be ${FORMAT_NAMES[String(e.params.format)] ?? `in ${e.params.format} format`}`;
    case 'pattern':
      return typeof parent[PATTERN_REASON] === 'string' ? (parent[PATTERN_REASON] as string) : `Must match ${e.params.pattern}`;
    case 'additionalProperties':
      return 'is not a known field';
    case 'uniqueItems':
      return 'Must not repeat an item';
    default:
      return e.message ?? 'is invalid';
  }
}

/** Every schema failure, one item per field, with the field's path. */
export function validationErrors(errors: ErrorObject[], part: string | undefined): ErrorItem[] {
  const items: ErrorItem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    // anyOf/oneOf add a summary error on top of the branch errors; the branches say more.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const extra =
      e.keyword === 'required'
        ? String(e.params.missingProperty)
        : e.keyword === 'additionalProperties'
          ? String(e.params.additionalProperty)
          : undefined;
    let field = fieldPath(e.instancePath, extra);
    if (!field && part && part !== 'body') field = part;
    const reason = reasonOf(e);
    const key = `${field}\u0000${reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(
      field
        ? { field, reason: e.keyword === 'required' ? `${field} is required` : reason }
        : { reason: `Request body: ${reason}` },
    );
  }
  return items;
}
