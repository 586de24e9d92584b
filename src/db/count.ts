import { type SelectQueryBuilder, sql } from 'kysely';

/** How many rows a query selects, whatever it selects; a PostgreSQL count (a bigint, read as text) comes back a number. */
export async function countRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): Promise<number> {
  const counted = (await query.clearSelect().clearOrderBy().select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()) as {
    n: number | string;
  };
  return Number(counted.n);
}
