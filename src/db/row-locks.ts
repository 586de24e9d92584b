import { type Kysely, sql } from 'kysely';
import type { Database } from './database.ts';
import { isPostgres } from './transaction.ts';

type TableWithId = { [K in keyof Database]: Database[K] extends { id: unknown } ? K : never }[keyof Database];

/**
 * Locks rows of one table until the transaction ends, in id order: transactions that each lock
 * several rows this way before writing them wait for one another instead of deadlocking (two clones
 * crossing between two nodes). PostgreSQL only: SQLite's one writer already holds the whole database.
 */
export async function lockRows(trx: Kysely<Database>, table: TableWithId, ids: readonly number[]): Promise<void> {
  if (!isPostgres(trx) || ids.length === 0) return;
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  await sql`select id from ${sql.table(table)} where id in (${sql.join(sorted)}) order by id for update`.execute(trx);
}
