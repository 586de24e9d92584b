import { type SelectQueryBuilder, sql } from 'kysely';

/** The query that counts the rows a query selects, whatever it selects (one row, one column `n`). */
export function countQuery<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) {
  return query.clearSelect().clearOrderBy().select(sql<number>`count(*)`.as('n'));
}

/** How many rows a query selects; a PostgreSQL count (a bigint, read as text) comes back a number. */
export async function countRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): Promise<number> {
  const counted = (await countQuery(query).executeTakeFirstOrThrow()) as {
    n: number | string;
  };
  return Number(counted.n);
}
