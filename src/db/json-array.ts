import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './database.ts';
import { isPostgres } from './transaction.ts';

/**
 * The elements of a JSON array held in a text column, as rows to `cross join` (each element named
 * `j`), and a text field of an element: `json_each` on SQLite, `jsonb_array_elements` on PostgreSQL.
 */
export function jsonArrayRows(
  db: Kysely<Database>,
  column: string,
): { rows: RawBuilder<unknown>; field(name: string): RawBuilder<string> } {
  return isPostgres(db)
    ? {
        rows: sql`jsonb_array_elements(${sql.ref(column)}::jsonb) as j(value)`,
        field: (name) => sql<string>`j.value->>${name}`,
      }
    : {
        rows: sql`json_each(${sql.ref(column)}) as j`,
        field: (name) => sql<string>`json_extract(j.value, ${`$.${name}`})`,
      };
}

/**
 * A subquery's one column (named `v`), in order, as a list held in one column of the outer row, so a
 * row and the lists hanging off it come in one statement: `array(...)` on PostgreSQL, a JSON array
 * text on SQLite. Read it with `readList`.
 */
export function listColumn(db: Kysely<Database>, subquery: RawBuilder<unknown>): RawBuilder<unknown> {
  return isPostgres(db) ? sql`array(${subquery})` : sql`(select json_group_array(v) from (${subquery}))`;
}

/** What `listColumn` gave, as an array. */
export function readList<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : (JSON.parse(String(value)) as T[]);
}
