import { type Compilable, type CompiledQuery, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { countQuery, countRows } from './count.ts';
import type { Database } from './database.ts';
import { plainRead } from './direct-read.ts';
import { compileFilter, type FilterSpec } from './filter.ts';
import { isPostgres } from './transaction.ts';

export interface PageRequest {
  page: number;
  pageSize: number;
  /** The parsed X-Filter document, if the request sent one. */
  filter?: unknown;
  /** The X-Filter header's text, as sent (what `filter` was parsed from). */
  filterText?: string;
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

/** A page request's two statements, compiled: the count of what the filter selects, and the page. */
interface PageStatements {
  count: CompiledQuery;
  page: CompiledQuery;
}

/** Past this length, an X-Filter's statements are built each time it comes and not kept. */
const MAX_KEPT_FILTER = 1024;

/**
 * The compiled statements of a hot list's recent page requests (the least recently used dropped
 * past `size`), by all they are built from: the SQL dialect, whose list it is (`owner`: the scope,
 * as the list's query cuts it), the page, its size and the X-Filter's text. A client polling a list
 * sends the same request each time, and building its two statements cost about a fifth of an
 * embedded list-100's CPU (docs/benchmark.md, the hot path). Nothing else may go into them: no value read from
 * the database, the clock or the configuration.
 */
export class PageStatementCache {
  readonly #kept = new Map<string, PageStatements>();
  readonly #size: number;

  constructor(size = 256) {
    this.#size = size;
  }

  statements(db: Kysely<Database>, owner: string, request: PageRequest, build: () => PageStatements): PageStatements {
    if ((request.filterText?.length ?? 0) > MAX_KEPT_FILTER) return build();
    const key = `${isPostgres(db) ? 'pg' : 'sqlite'}|${owner}|${request.page}|${request.pageSize}|${request.filterText === undefined ? '' : `=${request.filterText}`}`;
    const kept = this.#kept.get(key);
    if (kept) {
      this.#kept.delete(key);
      this.#kept.set(key, kept);
      return kept;
    }
    const built = build();
    this.#kept.set(key, built);
    if (this.#kept.size > this.#size) this.#kept.delete(this.#kept.keys().next().value as string);
    return built;
  }
}

/** A hot list's page: its query (built only when its statements are not kept), the cache and whose list it is. */
export interface KeptPageSource<DB, TB extends keyof DB, O> {
  query: () => SelectQueryBuilder<DB, TB, O>;
  cache: PageStatementCache;
  owner: string;
}

/** A page of a hot list from its kept (or newly built) statements, each row as `arrays` says. */
async function keptPage<DB, TB extends keyof DB, O>(
  db: Kysely<Database>,
  source: KeptPageSource<DB, TB, O>,
  request: PageRequest,
  spec: FilterSpec,
  arrays: boolean,
  asPage: (page: SelectQueryBuilder<DB, TB, O>) => CompiledQuery,
): Promise<Page<unknown>> {
  const { count, page } = source.cache.statements(db, source.owner, request, () => {
    const queries = pageQueries(source.query(), request, spec);
    return { count: countQuery(queries.filtered).compile(), page: asPage(queries.page) };
  });
  const [counted, data] = await Promise.all([
    plainRead(db, count.sql, count.parameters, true),
    plainRead(db, page.sql, page.parameters, arrays),
  ]);
  const results = Number((counted as unknown[][])[0]?.[0] ?? 0);
  return { data, page: request.page, pages: pagesOf(results, request), results };
}

/**
 * The same pagination, each row an array of its columns' values in the select's order (no object a
 * row), read straight on the driver outside a transaction.
 */
export async function paginateValues<DB, TB extends keyof DB, O>(
  db: Kysely<Database>,
  source: KeptPageSource<DB, TB, O>,
  request: PageRequest,
  spec: FilterSpec,
): Promise<Page<unknown[]>> {
  return (await keptPage(db, source, request, spec, true, (page) => page.compile())) as Page<unknown[]>;
}

/**
 * The same pagination on SQLite, each row's API object written as JSON text by `asJson` (one
 * column, `j`): the database writes the page's array, so the service neither reads rows into
 * objects nor serializes them. The objects are joined as text in the page's order (`json_group_array`
 * would parse each again). PostgreSQL's JSON functions cost it more than its rows cost the service
 * (docs/benchmark.md, the hot path): there a page is read as values (`paginateValues`).
 */
export async function paginateJson<DB, TB extends keyof DB, O>(
  db: Kysely<Database>,
  source: KeptPageSource<DB, TB, O>,
  request: PageRequest,
  spec: FilterSpec,
  asJson: (page: SelectQueryBuilder<DB, TB, O>) => Compilable<{ j: unknown }>,
): Promise<JsonPage> {
  // What the objects need (joins, the JSON select) goes on the page only; the count reads the index alone.
  const page = await keptPage(db, source, request, spec, false, (ordered) => {
    const objects = asJson(ordered);
    return sql<{ data: string }>`select '[' || coalesce(group_concat(p.j, ','), '') || ']' as data from (${objects}) p`.compile(
      db,
    );
  });
  const [row] = page.data as { data: string }[];
  return { ...page, data: row?.data ?? '[]' };
}

/** A JSON page's body, as the Paginated schema orders it. */
export function jsonPageBody(page: JsonPage): string {
  return `{"data":${page.data},"page":${page.page},"pages":${page.pages},"results":${page.results}}`;
}

/** Maps the rows of a page to API objects. */
export function mapPage<A, B>(page: Page<A>, map: (row: A) => B): Page<B> {
  return { ...page, data: page.data.map(map) };
}
