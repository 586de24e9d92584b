import { type Kysely, sql } from 'kysely';
import type { Database } from './database.ts';
import { isPostgres } from './transaction.ts';

/**
 * Locks the rows of `table` whose `column` holds one of `values` until the transaction ends, in
 * order of that column: a request that locks what it writes before reading it waits for a
 * concurrent one and then reads what that one committed (a row deleted meanwhile is gone), and
 * transactions that lock several rows in one call wait for one another instead of deadlocking (two
 * clones crossing between two nodes). PostgreSQL only: SQLite's one writer holds the whole
 * database already. Outside a transaction there is nothing to hold a lock for.
 */
export async function lockRows<T extends keyof Database>(
  db: Kysely<Database>,
  table: T,
  column: keyof Database[T] & string,
  values: readonly (number | string)[],
): Promise<void> {
  if (!db.isTransaction || !isPostgres(db) || values.length === 0) return;
  const sorted = [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await sql`select 1 from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(sorted)}) order by ${sql.ref(column)} for update`.execute(
    db,
  );
}

/**
 * Holds a lock on a name until the transaction ends, for writers that must take turns on something
 * no single row stands for (the free space of an address block). PostgreSQL only, as `lockRows`;
 * the name is taken within the current schema.
 */
export async function lockName(db: Kysely<Database>, name: string): Promise<void> {
  if (!db.isTransaction || !isPostgres(db)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(current_schema() || ' ' || ${name}, 0))`.execute(db);
}
