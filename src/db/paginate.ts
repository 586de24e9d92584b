import { type Compilable, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { countQuery, countRows } from './count.ts';
import type { Database } from './database.ts';
import { directRead } from './direct-read.ts';
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

/** A page whose rows the database wrote as one JSON array's text (`paginateJson`). */
export interface JsonPage {
  data: string;
  page: number;
  pages: number;
  results: number;
}

/** The filtered query (to count) and the page of it (ordered, limited), from the request's filter and order. */
function pageQueries<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, request: PageRequest, spec: FilterSpec) {
  const { where, orderBy } = compileFilter(request.filter, spec);
  const filtered = where ? query.where(where) : query;
  let ordered = filtered.clearOrderBy();
  // The databases disagree on where nulls sort; say it, the way PostgreSQL's indexes already
  // order them (nulls highest), so SQLite agrees and PostgreSQL can still read the order off an index.
  for (const o of orderBy) {
    ordered = ordered.orderBy(sql.ref(o.column), (ob) => (o.direction === 'asc' ? ob.asc().nullsLast() : ob.desc().nullsFirst()));
  }
  // Limit and offset go in as literals (they are validated integers): SQLite's planner reads a bound
  // limit's value, so rebinding one makes it prepare the statement again on every call.
  const page = ordered.limit(sql.lit(request.pageSize)).offset(sql.lit((request.page - 1) * request.pageSize));
  return { filtered, page };
}

const pagesOf = (results: number, request: PageRequest) => Math.max(1, Math.ceil(results / request.pageSize));

/** The one pagination: filter and order compiled to SQL, a count, and one page of rows. */
export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  request: PageRequest,
  spec: FilterSpec,
): Promise<Page<O>> {
  const { filtered, page } = pageQueries(query, request, spec);
  const results = await countRows(filtered);
  const data = await page.execute();
  return { data, page: request.page, pages: pagesOf(results, request), results };
}

/**
 * The same pagination, each row an array of its columns' values in the select's order (no object a
 * row), read straight on the driver outside a transaction.
 */
export async function paginateValues<DB, TB extends keyof DB, O>(
  db: Kysely<Database>,
  query: SelectQueryBuilder<DB, TB, O>,
  request: PageRequest,
  spec: FilterSpec,
): Promise<Page<unknown[]>> {
  const { filtered, page } = pageQueries(query, request, spec);
  const read = directRead(db);
  if (!read) {
    const results = await countRows(filtered);
    const data = (await page.execute()).map((row) => Object.values(row as Record<string, unknown>));
    return { data, page: request.page, pages: pagesOf(results, request), results };
  }
  const count = countQuery(filtered).compile();
  const rows = page.compile();
  const [counted, data] = await Promise.all([read(count.sql, count.parameters, true), read(rows.sql, rows.parameters, true)]);
  const results = Number((counted as unknown[][])[0]?.[0] ?? 0);
  return { data: data as unknown[][], page: request.page, pages: pagesOf(results, request), results };
}

/**
 * The same pagination on SQLite, each row's API object written as JSON text by `asJson` (one
 * column, `j`): the database writes the page's array, so the service neither reads rows into
 * objects nor serializes them. The objects are joined as text in the page's order (`json_group_array`
 * would parse each again). PostgreSQL's JSON functions cost it more than its rows cost the service
 * (README, the hot path): there a page is read as values (`paginateValues`).
 */
export async function paginateJson<DB, TB extends keyof DB, O>(
  db: Kysely<Database>,
  query: SelectQueryBuilder<DB, TB, O>,
  request: PageRequest,
  spec: FilterSpec,
  asJson: (page: SelectQueryBuilder<DB, TB, O>) => Compilable<{ j: unknown }>,
): Promise<JsonPage> {
  const { filtered, page: ordered } = pageQueries(query, request, spec);
  // What the objects need (joins, the JSON select) goes on the page only; the count reads the index alone.
  const page = asJson(ordered);
  const results = await countRows(filtered);
  const { rows } = await sql<{
    data: string;
  }>`select '[' || coalesce(group_concat(p.j, ','), '') || ']' as data from (${page}) p`.execute(db);
  return { data: rows[0]?.data ?? '[]', page: request.page, pages: pagesOf(results, request), results };
}

/** A JSON page's body, as the Paginated schema orders it. */
export function jsonPageBody(page: JsonPage): string {
  return `{"data":${page.data},"page":${page.page},"pages":${page.pages},"results":${page.results}}`;
}

/** Maps the rows of a page to API objects. */
export function mapPage<A, B>(page: Page<A>, map: (row: A) => B): Page<B> {
  return { ...page, data: page.data.map(map) };
}
