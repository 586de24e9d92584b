import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import { directRead } from './direct-read.ts';
import { prepareOnEveryConnection } from './postgres.ts';
import { isPostgres } from './transaction.ts';

const MARK = '\u0000cumulo-argument:';

interface Compiled {
  sql: string;
  /** Per parameter: the argument it takes, or a value fixed when the query was built. */
  slots: ({ arg: string } | { value: unknown })[];
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
  build: (db: Kysely<Database>, args: Args, shape: string) => Compilable<Row>,
): (db: Kysely<Database>, shape: string, args: Args) => Row[] | Promise<Row[]> {
  const cache = new Map<string, Compiled>();
  return (db, shape, args) => {
    const postgres = isPostgres(db);
    const key = `${postgres ? 'pg' : 'sqlite'}:${shape}`;
    let compiled = cache.get(key);
    if (!compiled) {
      const marks = Object.fromEntries(Object.keys(args).map((name) => [name, `${MARK}${name}`])) as Args;
      const query = build(db, marks, shape).compile();
      compiled = {
        sql: query.sql,
        slots: query.parameters.map((p) =>
          typeof p === 'string' && p.startsWith(MARK) ? { arg: p.slice(MARK.length) } : { value: p },
        ),
      };
      cache.set(key, compiled);
      if (postgres) prepareOnEveryConnection(compiled.sql);
    }
    const parameters = compiled.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value));
    const rows = directRead(db)?.(compiled.sql, parameters);
    if (rows) return rows as Row[] | Promise<Row[]>;
    return db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters)).then((result) => result.rows);
  };
}
