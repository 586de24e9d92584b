import { Kysely, sql } from 'kysely';
import { openNotices } from './change-notices.ts';
import type { Database, Db, DbKind } from './database.ts';
import { registerDirectRead } from './direct-read.ts';
import { PipelinedReads } from './pipelined-reads.ts';
import {
  createPostgresDialect,
  createPostgresPool,
  postgresClientConfig,
  urlWithSchema,
  useNamedStatements,
} from './postgres.ts';
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

/**
 * The connections PostgreSQL's plain reads are pipelined on, beside the pool: two measured a view
 * 1.48x and a page 1.22x as fast as the pool's connections (docs/benchmark.md, the hot path); one was faster
 * still (1.53x, 1.35x) but would queue every read behind the slowest.
 */
const PIPELINED_READ_CONNECTIONS = 2;

export function openDatabase(options: OpenOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const where = { url: options.databaseUrl, ...(options.pgSchema ? { schema: options.pgSchema } : {}) };
    const pool = createPostgresPool(where);
    const db = new Kysely<Database>({ dialect: createPostgresDialect(pool) });
    const reads = new PipelinedReads(postgresClientConfig(where), PIPELINED_READ_CONNECTIONS, useNamedStatements);
    registerDirectRead(db, (text, values, arrays = false) => reads.query(text, values, arrays));
    const listening = options.pgSchema ? urlWithSchema(options.databaseUrl, options.pgSchema) : options.databaseUrl;
    const notices = openNotices(db, listening, options.pgSchema);
    const url = new URL(options.databaseUrl);
    return handle(db, 'postgres', `postgres://${url.host}${url.pathname}${options.pgSchema ? `#${options.pgSchema}` : ''}`, {
      async close() {
        await notices.close();
        await reads.close();
      },
    });
  }
  const file = options.sqliteFile ?? sqliteFile(options.dataDir);
  const dialect = createSqliteDialect(file);
  const db = new Kysely<Database>({ dialect });
  registerDirectRead(db, dialect.directRead());
  return handle(db, 'sqlite', file);
}

function handle(db: Db, kind: DbKind, location: string, ownConnections?: { close(): Promise<void> }): DatabaseHandle {
  return {
    db,
    kind,
    location,
    ping: () => pingDatabase(db),
    async close() {
      await ownConnections?.close();
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
