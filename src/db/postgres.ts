import { PostgresDialect } from 'kysely';
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

export function createPostgresPool(options: PostgresOptions): pg.Pool {
  return new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    types,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
}

export function createPostgresDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool });
}
