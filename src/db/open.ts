import { Kysely, sql } from 'kysely';
import { openNotices } from './change-notices.ts';
import type { Database, Db, DbKind } from './database.ts';
import { registerDirectRead } from './direct-read.ts';
import { createPostgresDialect, createPostgresPool, urlWithSchema } from './postgres.ts';
import { createSqliteDialect, sqliteFile } from './sqlite.ts';

export interface DatabaseHandle {
  db: Db;
  kind: DbKind;
  /** Where the data lives, for logs and the info endpoint (no credentials). */
  location: string;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL only: the schema every connection uses. */
  pgSchema?: string;
  /** SQLite only: a file other than the default one in the data dir. */
  sqliteFile?: string;
}

export function openDatabase(options: OpenOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const pool = createPostgresPool({ url: options.databaseUrl, ...(options.pgSchema ? { schema: options.pgSchema } : {}) });
    const db = new Kysely<Database>({ dialect: createPostgresDialect(pool) });
    registerDirectRead(db, async (text, values, arrays = false) =>
      arrays
        ? (await pool.query({ text, values: values as unknown[], rowMode: 'array' })).rows
        : (await pool.query(text, values as unknown[])).rows,
    );
    const listening = options.pgSchema ? urlWithSchema(options.databaseUrl, options.pgSchema) : options.databaseUrl;
    const notices = openNotices(db, listening, options.pgSchema);
    const url = new URL(options.databaseUrl);
    return handle(
      db,
      'postgres',
      `postgres://${url.host}${url.pathname}${options.pgSchema ? `#${options.pgSchema}` : ''}`,
      notices,
    );
  }
  const file = options.sqliteFile ?? sqliteFile(options.dataDir);
  const dialect = createSqliteDialect(file);
  const db = new Kysely<Database>({ dialect });
  registerDirectRead(db, dialect.directRead());
  return handle(db, 'sqlite', file);
}

function handle(db: Db, kind: DbKind, location: string, notices?: { close(): Promise<void> }): DatabaseHandle {
  return {
    db,
    kind,
    location,
    ping: () => pingDatabase(db),
    async close() {
      await notices?.close();
      await db.destroy();
    },
  };
}

/** Whether the database answers a trivial query. */
export async function pingDatabase(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
