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

/** A list read from a column: a JSON array's text, or an array the driver already parsed. */
export function readList<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : (JSON.parse(String(value)) as T[]);
}
