import { type RawBuilder, sql } from 'kysely';
import type { Db, DbKind } from './database.ts';
import type { TableInfo } from './tables.ts';

/** A row as plain values in the table's column order. */
export type RowValues = unknown[];

/** SQLite takes at most 32 766 parameters a statement, PostgreSQL 65 535. */
const MAX_PARAMETERS = 30_000;

function orderClause(kind: DbKind, table: TableInfo): RawBuilder<unknown> {
  // PostgreSQL sorts text by the database's locale unless told otherwise; SQLite sorts bytes.
  const terms = table.orderBy.map((c) =>
    kind === 'postgres' && table.textOrder.includes(c) ? sql`${sql.ref(c)} collate "C"` : sql.ref(c),
  );
  return sql.join(terms);
}

/** One page of a table's rows, in its order. */
export async function readRows(db: Db, kind: DbKind, table: TableInfo, offset: number, limit: number): Promise<RowValues[]> {
  const result = await sql<Record<string, unknown>>`
    select ${sql.join(table.columns.map((c) => sql.ref(c)))} from ${sql.table(table.name)}
    order by ${orderClause(kind, table)} limit ${limit} offset ${offset}`.execute(db);
  return result.rows.map((row) => table.columns.map((c) => row[c] ?? null));
}

export async function countRows(db: Db, table: string): Promise<number> {
  const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

export async function insertRows(db: Db, table: TableInfo, columns: string[], rows: RowValues[]): Promise<void> {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / Math.max(1, columns.length)));
  for (let i = 0; i < rows.length; i += perStatement) {
    const values = rows.slice(i, i + perStatement).map((row) => sql`(${sql.join(row.map((v) => sql`${v}`))})`);
    await sql`insert into ${sql.table(table.name)} (${sql.join(columns.map((c) => sql.ref(c)))})
      values ${sql.join(values)}`.execute(db);
  }
}

/**
 * Empties every table and restarts every id sequence at 1. Call inside a transaction; `tables` in
 * parent-first order.
 */
export async function wipeTables(db: Db, kind: DbKind, tables: TableInfo[]): Promise<void> {
  if (!tables.length) return;
  if (kind === 'postgres') {
    await sql`truncate table ${sql.join(tables.map((t) => sql.table(t.name)))} restart identity cascade`.execute(db);
    return;
  }
  for (const table of [...tables].reverse()) await sql`delete from ${sql.table(table.name)}`.execute(db);
  await sql`delete from sqlite_sequence`.execute(db);
}

/** The last value the table's id sequence handed out (0 when none). */
export async function readSequence(db: Db, kind: DbKind, table: TableInfo): Promise<number> {
  if (!table.serial) return 0;
  const result =
    kind === 'postgres'
      ? await sql<{ v: number | null }>`
          select pg_sequence_last_value(pg_get_serial_sequence(${table.name}, ${table.serial})::regclass) as v`.execute(db)
      : await sql<{ v: number | null }>`select seq as v from sqlite_sequence where name = ${table.name}`.execute(db);
  return Number(result.rows[0]?.v ?? 0);
}

/** Makes the next id `value + 1`. */
export async function writeSequence(db: Db, kind: DbKind, table: TableInfo, value: number): Promise<void> {
  if (!table.serial) return;
  if (kind === 'postgres') {
    const seq = sql`pg_get_serial_sequence(${table.name}, ${table.serial})`;
    await (value > 0 ? sql`select setval(${seq}, ${value}, true)` : sql`select setval(${seq}, 1, false)`).execute(db);
    return;
  }
  await sql`delete from sqlite_sequence where name = ${table.name}`.execute(db);
  if (value > 0) await sql`insert into sqlite_sequence (name, seq) values (${table.name}, ${value})`.execute(db);
}

/** The largest value of the table's id column (0 when empty). */
export async function maxSerial(db: Db, table: TableInfo): Promise<number> {
  if (!table.serial) return 0;
  const result = await sql<{ v: number | string | null }>`
    select max(${sql.ref(table.serial)}) as v from ${sql.table(table.name)}`.execute(db);
  return Number(result.rows[0]?.v ?? 0);
}
