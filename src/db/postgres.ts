import { type DatabaseIntrospector, type Kysely, PostgresDialect, type SchemaMetadata, sql, type TableMetadata } from 'kysely';
import pg from 'pg';
import { DescribedOnceQuery, type RowDescription } from './pg-read-query.ts';
import { installAddFields } from './pg-result-fields.ts';

installAddFields();

const toNumber = (v: string) => Number(v);

// int8 and numeric come back as strings by default; every such value here (ids,
// epoch milliseconds, counts) fits in a double.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return toNumber;
    return pg.types.getTypeParser(oid, format);
  },
};

export interface PostgresOptions {
  url: string;
  /** Puts every connection in this schema; tests use one schema per app. */
  schema?: string;
  max?: number;
}

/**
 * The URL with every connection put in `schema`, after the settings the URL has of its own: pg takes
 * a connection string's `options` over one given beside it, so the schema joins them there.
 */
export function urlWithSchema(databaseUrl: string, schema: string): string {
  const url = new URL(databaseUrl);
  const own = url.searchParams.get('options');
  url.searchParams.set('options', `${own ? `${own} ` : ''}-c search_path=${schema}`);
  return url.toString();
}

/**
 * Statements run as named prepared statements, by their SQL text: parsed and planned once a
 * connection rather than on every run. As JDBC's driver does it: a text is named once it has run a
 * few times (the service's statements are few and fixed in shape), and no more than
 * MAX_NAMED_STATEMENTS are ever named, so what each connection keeps on the server stays bounded
 * whatever SQL the rest of the service builds (lists of ids of every length, filters).
 */
const named = new Map<string, string>();
const seen = new Map<string, number>();
const NAME_AFTER_RUNS = 3;
const MAX_NAMED_STATEMENTS = 1000;
const MAX_COUNTED = 10_000;

function nameOf(text: string): string | undefined {
  const name = named.get(text);
  if (name !== undefined || named.size >= MAX_NAMED_STATEMENTS) return name;
  const runs = (seen.get(text) ?? 0) + 1;
  if (runs < NAME_AFTER_RUNS) {
    if (seen.size >= MAX_COUNTED) seen.clear();
    seen.set(text, runs);
    return undefined;
  }
  seen.delete(text);
  return nameStatement(text);
}

function nameStatement(text: string): string {
  const name = `cumulo_${named.size + 1}`;
  named.set(text, name);
  return name;
}

/** Names a statement from its first run (the hot reads of src/db/prepared.ts, whose SQL is fixed). */
export function prepareOnEveryConnection(text: string): void {
  if (!named.has(text) && named.size < MAX_NAMED_STATEMENTS) nameStatement(text);
}

type Query = (text: unknown, values?: unknown, callback?: unknown) => unknown;
type Callback = (error: Error | null, result?: unknown) => void;

/**
 * Sends a named statement by name (pg prepares it on the connection's first use) as a
 * DescribedOnceQuery, which asks for its row description on the connection's first run only;
 * anything else as it is. A query may be given as its text or as a config of text, values and
 * `rowMode` (a read whose rows are arrays, src/db/direct-read.ts).
 */
export function useNamedStatements(client: pg.Client): void {
  const query = client.query.bind(client) as Query;
  const descriptions = new Map<string, RowDescription>();
  const run = (text: string, values: unknown[], name: string, arrays: boolean, callback: unknown) => {
    const send = (done: Callback) => query(new DescribedOnceQuery(text, values, name, arrays, descriptions, done));
    if (typeof callback === 'function') return send(callback as Callback);
    return new Promise((resolve, reject) => send((error, result) => (error ? reject(error) : resolve(result))));
  };
  (client as unknown as { query: Query }).query = (text, values, callback) => {
    if (typeof text === 'string') {
      const name = Array.isArray(values) && values.length > 0 ? nameOf(text) : undefined;
      return name === undefined ? query(text, values, callback) : run(text, values as unknown[], name, false, callback);
    }
    const config = text as pg.QueryConfig | null;
    const plain = config && Object.keys(config).every((key) => key === 'text' || key === 'values' || key === 'rowMode');
    const name = plain && Array.isArray(config.values) && config.values.length > 0 ? nameOf(config.text) : undefined;
    if (!config || name === undefined) return query(text, values, callback);
    return run(config.text, config.values as unknown[], name, (config as { rowMode?: string }).rowMode === 'array', values);
  };
}

/** A connection of the service's own (src/db/pipelined-reads.ts) set up as the pool's are: its types, its named statements. */
export function postgresClientConfig(options: PostgresOptions): pg.ClientConfig {
  return { connectionString: options.schema ? urlWithSchema(options.url, options.schema) : options.url, types };
}

export function createPostgresPool(options: PostgresOptions): pg.Pool {
  const pool = new pg.Pool({ ...postgresClientConfig(options), max: options.max ?? 10 });
  pool.on('connect', useNamedStatements);
  // An idle connection the server ended (a restart, an administrator): the pool drops it and the next
  // query opens another. Without a listener the error would end the process.
  pool.on('error', () => {});
  return pool;
}

/**
 * Sees only the connection's own schema. Kysely's migrator looks its bookkeeping tables up through
 * this; the stock introspector reads every schema of the database, so with several schemas (one per
 * test app) it would find another schema's tables, or fail when one is dropped while it reads.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  #db: Kysely<unknown>;
  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }
  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.#db);
    return rows;
  }
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, ns.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p', 'f')`.execute(this.#db);
    return rows.map((r) => ({ name: r.name, schema: r.schema, isView: r.kind === 'v', isForeign: r.kind === 'f', columns: [] }));
  }
}

class SchemaScopedPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

export function createPostgresDialect(pool: pg.Pool): PostgresDialect {
  return new SchemaScopedPostgresDialect({ pool });
}
