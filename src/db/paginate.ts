import { type SelectQueryBuilder, sql } from 'kysely';
import { countRows } from './count.ts';
import { compileFilter, type FilterSpec } from './filter.ts';

export interface PageRequest {
  page: number;
  pageSize: number;
  /** The parsed X-Filter document, if the request sent one. */
  filter?: unknown;
}

export interface Page<T> {
  data: T[];
  page: number;
  pages: number;
  results: number;
}

/** The one pagination: filter and order compiled to SQL, a count, and one page of rows. */
export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  request: PageRequest,
  spec: FilterSpec,
): Promise<Page<O>> {
  const { where, orderBy } = compileFilter(request.filter, spec);
  const filtered = where ? query.where(where) : query;
  const results = await countRows(filtered);
  let ordered = filtered.clearOrderBy();
  // The databases disagree on where nulls sort; say it, the way PostgreSQL's indexes already
  // order them (nulls highest), so SQLite agrees and PostgreSQL can still read the order off an index.
  for (const o of orderBy) {
    ordered = ordered.orderBy(sql.ref(o.column), (ob) => (o.direction === 'asc' ? ob.asc().nullsLast() : ob.desc().nullsFirst()));
  }
  // Limit and offset go in as literals (they are validated integers): SQLite's planner reads a bound
  // limit's value, so rebinding one makes it prepare the statement again on every call.
  const data = await ordered
    .limit(sql.lit(request.pageSize))
    .offset(sql.lit((request.page - 1) * request.pageSize))
    .execute();
  return { data, page: request.page, pages: Math.max(1, Math.ceil(results / request.pageSize)), results };
}

/** Maps the rows of a page to API objects. */
export function mapPage<A, B>(page: Page<A>, map: (row: A) => B): Page<B> {
  return { ...page, data: page.data.map(map) };
}
