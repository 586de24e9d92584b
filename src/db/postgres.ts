import { type DatabaseIntrospector, type Kysely, PostgresDialect, type SchemaMetadata, sql, type TableMetadata } from 'kysely';
import pg from 'pg';

// int8 and numeric come back as strings by default; every such value here (ids,
// epoch milliseconds, counts) fits in a double.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (v: string) => Number(v);
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

export function createPostgresPool(options: PostgresOptions): pg.Pool {
  const connectionString = options.schema ? urlWithSchema(options.url, options.schema) : options.url;
  return new pg.Pool({ connectionString, max: options.max ?? 10, types });
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
