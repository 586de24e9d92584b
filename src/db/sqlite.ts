import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { type SqliteDatabase, SqliteDialect } from 'kysely';

/** Prepared statements kept per connection: compiling a statement costs more than running most of them. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SqliteDialect expects a better-sqlite3-style database; this adapts node:sqlite to it.
 * Statements are prepared once per SQL text and reused (least recently used dropped past the cache
 * size); a statement runs to completion inside `all`/`run`, so reuse is safe on the one connection.
 * `iterate` gets a statement of its own, since a stream may be left open while other queries run.
 */
function adapt(db: DatabaseSync): SqliteDatabase {
  const cache = new Map<string, { stmt: StatementSync; reader: boolean }>();
  const params = (p: ReadonlyArray<unknown>) => p as SQLInputValue[];
  const prepared = (sql: string) => {
    let entry = cache.get(sql);
    if (entry) {
      cache.delete(sql);
    } else {
      const stmt = db.prepare(sql);
      entry = { stmt, reader: stmt.columns().length > 0 };
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, entry);
    return entry;
  };
  return {
    close: () => db.close(),
    prepare(sql) {
      const { stmt, reader } = prepared(sql);
      return {
        reader,
        all: (p) => stmt.all(...params(p)),
        run: (p) => stmt.run(...params(p)),
        iterate: (p) => db.prepare(sql).iterate(...params(p)),
      };
    },
  };
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'cumulo.sqlite');
}

export function createSqliteDialect(file: string): SqliteDialect {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  return new SqliteDialect({ database: adapt(db) });
}
