import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import { plainRead } from './direct-read.ts';
import { prepareOnEveryConnection } from './postgres.ts';
import { isPostgres } from './transaction.ts';

const MARK = '\u0000cumulo-argument:';
/** Shapes kept a statement; past them (a list of a length never seen) each is built as it comes, and forgotten. */
const MAX_SHAPES = 64;

interface Compiled {
  /** The arguments it was built with, in the order the caller's object gives them. */
  given: string[];
  sql: string;
  /** Per parameter: the argument it takes, or a value fixed when the query was built. */
  slots: ({ arg: string } | { value: unknown })[];
}

/** A statement's builder: what it looks like may depend on `shape` and on which arguments are given, never on their values. */
type Build<Args, Row> = (db: Kysely<Database>, args: Args, shape: string) => Compilable<Row>;

/** Whether `values` gives exactly the arguments the statement was built with (looked at without making a key a call). */
function builtFor(compiled: Compiled, values: Record<string, unknown>): boolean {
  const { given } = compiled;
  let n = 0;
  for (const name in values) {
    if (values[name] === undefined) continue;
    if (given[n] !== name) return false;
    n += 1;
  }
  return n === given.length;
}

/** Variants of one statement by dialect and shape, each built for one set of arguments given. */
class Statements {
  #byShape = new Map<string, Compiled[]>();
  #count = 0;

  find(key: string, values: Record<string, unknown>): Compiled | undefined {
    const variants = this.#byShape.get(key);
    if (variants) for (const compiled of variants) if (builtFor(compiled, values)) return compiled;
    return undefined;
  }

  /** Whether it was kept: past MAX_SHAPES statements are built each time they come. */
  keep(key: string, compiled: Compiled): boolean {
    if (this.#count >= MAX_SHAPES) return false;
    this.#count += 1;
    const variants = this.#byShape.get(key);
    if (variants) variants.push(compiled);
    else this.#byShape.set(key, [compiled]);
    return true;
  }
}

/**
 * The statement of `build` for this dialect, shape and set of arguments (an undefined one is left
 * out, as Kysely leaves out an undefined column of an insert), built on first use with placeholder
 * arguments, and its parameters for these arguments.
 */
function statementFor<Args extends object, Row>(
  statements: Statements,
  build: Build<Args, Row>,
  db: Kysely<Database>,
  shape: string,
  args: Args,
): { sql: string; parameters: unknown[] } {
  const values = args as Record<string, unknown>;
  const postgres = isPostgres(db);
  const key = postgres ? `pg:${shape}` : shape;
  let compiled = statements.find(key, values);
  if (!compiled) {
    const marks: Record<string, string> = {};
    for (const name in values) if (values[name] !== undefined) marks[name] = `${MARK}${name}`;
    const query = build(db, marks as Args, shape).compile();
    compiled = {
      given: Object.keys(marks),
      sql: query.sql,
      slots: query.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(MARK) ? { arg: p.slice(MARK.length) } : { value: p },
      ),
    };
    if (statements.keep(key, compiled) && postgres) prepareOnEveryConnection(compiled.sql);
  }
  const parameters = compiled.slots.map((slot) => ('arg' in slot ? values[slot.arg] : slot.value));
  return { sql: compiled.sql, parameters };
}

/**
 * A read on a hot path, built with Kysely once and reused: the first call of each shape (and
 * dialect) builds the query with placeholder arguments and keeps its SQL; every call binds its
 * arguments where the placeholders were. What the query looks like may depend on `shape` only,
 * never on an argument's value (an argument is bound, never spliced into the SQL). On PostgreSQL the
 * statement is also a named prepared statement, parsed and planned once a connection. Outside a
 * transaction it runs straight on the driver (src/db/direct-read.ts): on node:sqlite without waiting.
 */
export function preparedRead<Args extends Record<string, string | number>, Row>(
  build: Build<Args, Row>,
): (db: Kysely<Database>, shape: string, args: Args) => Row[] | Promise<Row[]> {
  const statements = new Statements();
  return (db, shape, args) => {
    const { sql, parameters } = statementFor(statements, build, db, shape, args);
    return plainRead(db, sql, parameters) as Row[] | Promise<Row[]>;
  };
}

/**
 * A statement on a hot path that runs where it is called (in the caller's transaction, writes
 * included), built with Kysely once a shape as preparedRead's are. Building and compiling a query
 * costs Kysely several times what SQLite takes to run a small insert; a node's creation runs a dozen.
 * An argument may be null; one left undefined is not given at all (an insert's column left out), and
 * the statement without it is built on its own.
 */
export function preparedStatement<Args extends object, Row>(
  build: Build<Args, Row>,
): (db: Kysely<Database>, shape: string, args: Args) => Promise<Row[]> {
  const statements = new Statements();
  return async (db, shape, args) => {
    const { sql, parameters } = statementFor(statements, build, db, shape, args);
    return (await db.executeQuery<Row>(CompiledQuery.raw(sql, parameters))).rows;
  };
}

/**
 * Rows of a multi-row statement as one argument object (`0.label`, `1.label`, ...), beside any
 * other arguments; the statement's shape is how many rows there are (`rowsOf` in its builder).
 */
export function rowArguments(rows: readonly object[]): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  rows.forEach((row, i) => {
    for (const [column, value] of Object.entries(row)) args[`${i}.${column}`] = value;
  });
  return args;
}

/** In a builder: the rows `rowArguments` gave, `shape` of them, each value its placeholder. */
export function rowsOf(args: object, shape: string): Record<string, unknown>[] {
  const rows = Array.from({ length: Number(shape) }, () => ({}) as Record<string, unknown>);
  for (const [name, value] of Object.entries(args)) {
    const dot = name.indexOf('.');
    const row = dot > 0 ? rows[Number(name.slice(0, dot))] : undefined;
    if (row) row[name.slice(dot + 1)] = value;
  }
  return rows;
}
