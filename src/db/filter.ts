import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { fail } from '../errors.ts';
import { normalizeTimestamp } from '../time/timestamp.ts';

export type FilterFieldType = 'integer' | 'number' | 'string' | 'boolean' | 'datetime';
export type FilterOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains';
export type FilterValue = string | number | boolean | null;

export interface FilterField {
  /** Column reference, qualified when the query joins (`nodes.label`). */
  column: string;
  type: FilterFieldType;
  /**
   * For fields not stored as one column (tags), or values that stand for more than the column
   * holds: builds the condition itself, or gives null for the column's own comparison.
   */
  custom?: (op: FilterOp, value: FilterValue) => RawBuilder<SqlBool> | null;
  /** Whether `+order_by` may name it (its column); defaults to true for plain columns, false for custom ones. */
  sortable?: boolean;
  /** Text fields stored in one spelling (lower-case names): a value is matched in that spelling. */
  normalize?: (value: string) => string;
}

export interface FilterSpec {
  fields: Readonly<Record<string, FilterField>>;
  /** The order when the filter names none; `tiebreak` always ends the order so pages are stable. */
  defaultOrder?: { column: string; direction: 'asc' | 'desc' };
  tiebreak: string;
}

export interface CompiledFilter {
  where: RawBuilder<SqlBool> | null;
  orderBy: { column: string; direction: 'asc' | 'desc' }[];
}

const OPS: Record<string, FilterOp> = {
  '+gt': 'gt',
  '+gte': 'gte',
  '+lt': 'lt',
  '+lte': 'lte',
  '+neq': 'neq',
  '+contains': 'contains',
};
/** The SQL operator of each comparison (custom fields build their conditions with it). */
export const SQL_OPS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const MAX_DEPTH = 8;
const MAX_CONDITIONS = 100;
const FIELD = 'X-Filter';

class Compiler {
  #spec: FilterSpec;
  #conditions = 0;
  constructor(spec: FilterSpec) {
    this.#spec = spec;
  }

  object(input: unknown, depth: number): RawBuilder<SqlBool> | null {
    if (depth > MAX_DEPTH) throw fail.badRequest(`Filter is nested more than ${MAX_DEPTH} levels deep`, FIELD);
    if (!isPlainObject(input)) throw fail.badRequest('Each filter expression must be a JSON object', FIELD);
    const parts: RawBuilder<SqlBool>[] = [];
    for (const [key, value] of Object.entries(input)) {
      if (key === '+order_by' || key === '+order') {
        if (depth > 0) throw fail.badRequest(`${key} is allowed only at the top level of a filter`, FIELD);
        continue;
      }
      if (key === '+and' || key === '+or') {
        if (!Array.isArray(value)) throw fail.badRequest(`${key} takes an array of filter objects`, FIELD);
        // An empty list matches everything: clients send `{"+and": []}` when nothing is filtered.
        if (value.length === 0) continue;
        const inner = value.map((v) => this.object(v, depth + 1) ?? sql<SqlBool>`1 = 1`);
        parts.push(combine(inner, key === '+and' ? 'and' : 'or'));
        continue;
      }
      if (key.startsWith('+')) throw fail.badRequest(`Unknown filter operator ${key}`, FIELD);
      parts.push(this.field(key, value, depth));
    }
    return parts.length === 0 ? null : combine(parts, 'and');
  }

  field(name: string, value: unknown, depth: number): RawBuilder<SqlBool> {
    const field = Object.hasOwn(this.#spec.fields, name) ? this.#spec.fields[name] : undefined;
    if (!field) throw fail.badRequest(`Cannot filter on ${name}`, FIELD);
    if (isPlainObject(value)) {
      const parts: RawBuilder<SqlBool>[] = [];
      for (const [opKey, operand] of Object.entries(value)) {
        if (opKey === '+or' || opKey === '+and') {
          if (!Array.isArray(operand)) throw fail.badRequest(`${name}: ${opKey} takes an array`, FIELD);
          if (operand.length === 0) continue;
          if (depth >= MAX_DEPTH) throw fail.badRequest(`Filter is nested more than ${MAX_DEPTH} levels deep`, FIELD);
          const inner = operand.map((v) => this.field(name, v, depth + 1));
          parts.push(combine(inner, opKey === '+and' ? 'and' : 'or'));
          continue;
        }
        const op = OPS[opKey];
        if (!op) throw fail.badRequest(`Unknown filter operator ${opKey} on ${name}`, FIELD);
        parts.push(this.condition(name, field, op, operand));
      }
      if (parts.length === 0) {
        if (Object.keys(value).length === 0) throw fail.badRequest(`${name}: empty operator object`, FIELD);
        return sql<SqlBool>`1 = 1`;
      }
      return combine(parts, 'and');
    }
    return this.condition(name, field, 'eq', value);
  }

  condition(name: string, field: FilterField, op: FilterOp, raw: unknown): RawBuilder<SqlBool> {
    this.#conditions += 1;
    if (this.#conditions > MAX_CONDITIONS) throw fail.badRequest(`A filter may hold at most ${MAX_CONDITIONS} conditions`, FIELD);
    const value = checkValue(name, field, op, raw);
    const custom = field.custom?.(op, value);
    if (custom) return custom;
    const column = sql.ref(field.column);
    if (value === null) {
      if (op === 'eq') return sql<SqlBool>`${column} is null`;
      if (op === 'neq') return sql<SqlBool>`${column} is not null`;
      throw fail.badRequest(`${name}: null can only be compared for equality`, FIELD);
    }
    const stored = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    if (op === 'contains') {
      return sql<SqlBool>`lower(${column}) like ${`%${escapeLike(String(stored).toLowerCase())}%`} escape '\\'`;
    }
    // As bigint, an integer beyond a 32-bit column's range compares instead of failing the query.
    const operand = field.type === 'integer' ? sql`cast(${stored} as bigint)` : sql`${stored}`;
    if (op === 'neq') return sql<SqlBool>`(${column} is null or ${column} <> ${operand})`;
    return sql<SqlBool>`${column} ${sql.raw(SQL_OPS[op])} ${operand}`;
  }

  order(input: unknown): CompiledFilter['orderBy'] {
    const spec = this.#spec;
    const tiebreak = { column: spec.tiebreak, direction: 'asc' as const };
    const obj = isPlainObject(input) ? input : {};
    const by = obj['+order_by'];
    const dir = obj['+order'];
    if (dir !== undefined && dir !== 'asc' && dir !== 'desc') {
      throw fail.badRequest('+order must be "asc" or "desc"', FIELD);
    }
    if (by === undefined) {
      const base = spec.defaultOrder ? [spec.defaultOrder] : [];
      const direction = dir ?? spec.defaultOrder?.direction ?? 'asc';
      return [...base.map((o) => ({ ...o, direction })), { ...tiebreak, direction }];
    }
    if (typeof by !== 'string') throw fail.badRequest('+order_by must name a field', FIELD);
    const field = Object.hasOwn(spec.fields, by) ? spec.fields[by] : undefined;
    if (!field || !(field.sortable ?? field.custom === undefined)) {
      throw fail.badRequest(`Cannot order by ${by}: it is not a sortable field`, FIELD);
    }
    const direction = dir ?? 'asc';
    return [
      { column: field.column, direction },
      { ...tiebreak, direction },
    ];
  }
}

function checkValue(name: string, field: FilterField, op: FilterOp, value: unknown): FilterValue {
  const bad = (what: string) => fail.badRequest(`${name}: ${what}`, FIELD);
  if (value === null) return null;
  // No stored text holds NUL, and PostgreSQL rejects the whole query over one.
  if (typeof value === 'string' && value.includes('\u0000')) throw bad('text may not contain the NUL character');
  if (op === 'contains') {
    if (field.type !== 'string') throw bad('+contains applies only to text fields');
    if (typeof value !== 'string') throw bad('+contains takes a string');
    return field.normalize ? field.normalize(value) : value;
  }
  if (['gt', 'gte', 'lt', 'lte'].includes(op) && field.type === 'boolean') {
    throw bad('a true/false field can only be compared for equality');
  }
  switch (field.type) {
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw bad('expected an integer');
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw bad('expected a number');
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('expected true or false');
      return value;
    case 'datetime': {
      const ts = typeof value === 'string' ? normalizeTimestamp(value) : null;
      if (ts === null) throw bad('expected an ISO 8601 date-time');
      return ts;
    }
    case 'string':
      if (typeof value !== 'string') throw bad('expected a string');
      return field.normalize ? field.normalize(value) : value;
  }
}

function combine(parts: RawBuilder<SqlBool>[], joiner: 'and' | 'or'): RawBuilder<SqlBool> {
  if (parts.length === 1 && parts[0]) return parts[0];
  return sql<SqlBool>`(${sql.join(parts, sql.raw(` ${joiner} `))})`;
}

/** Escapes LIKE wildcards; patterns using it say `escape '\\'`. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Compiles a parsed X-Filter document against the fields a collection declares filterable. */
export function compileFilter(input: unknown, spec: FilterSpec): CompiledFilter {
  const compiler = new Compiler(spec);
  if (input === undefined) return { where: null, orderBy: compiler.order(undefined) };
  return { where: compiler.object(input, 0), orderBy: compiler.order(input) };
}
