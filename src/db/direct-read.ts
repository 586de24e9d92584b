import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './database.ts';

/**
 * A plain read (one SELECT outside any transaction) run straight on the driver, without the query
 * builder's execution path: on node:sqlite it runs at once on the read connection and returns its
 * rows; on PostgreSQL it is sent on one of the pipelined read connections (src/db/pipelined-reads.ts).
 * With `arrays`, each row is an array of its columns' values in the select's order (no object a
 * row). Undefined until the database is open.
 */
export type DirectRead = (
  sql: string,
  parameters: readonly unknown[],
  arrays?: boolean,
) => unknown[] | Promise<unknown[]> | undefined;

const reads = new WeakMap<Kysely<Database>, DirectRead>();

/** Called once by whoever opens the database (src/db/open.ts). */
export function registerDirectRead(db: Kysely<Database>, read: DirectRead): void {
  reads.set(db, read);
}

/** The direct read of a database opened by src/db/open.ts; none for a transaction, whose reads stay in it. */
export function directRead(db: Kysely<Database>): DirectRead | undefined {
  return reads.get(db);
}

/**
 * A plain read's rows: straight on the driver where the database has a direct read (on node:sqlite
 * at once, with no promise), else through Kysely (a transaction's). With `arrays`, each row is its
 * values in the select's order.
 */
export function plainRead(
  db: Kysely<Database>,
  sql: string,
  parameters: readonly unknown[],
  arrays = false,
): unknown[] | Promise<unknown[]> {
  const rows = directRead(db)?.(sql, parameters, arrays);
  if (rows) return rows;
  return db
    .executeQuery(CompiledQuery.raw(sql, [...parameters]))
    .then(({ rows: objects }) => (arrays ? objects.map((row) => Object.values(row as Record<string, unknown>)) : objects));
}
