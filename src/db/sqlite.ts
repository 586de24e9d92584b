import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { type SqliteDatabase, SqliteDialect } from 'kysely';

/** Kysely's SqliteDialect expects a better-sqlite3-style database; this adapts node:sqlite to it. */
function adapt(db: DatabaseSync): SqliteDatabase {
  return {
    close: () => db.close(),
    prepare(sql) {
      const stmt = db.prepare(sql);
      const params = (p: ReadonlyArray<unknown>) => p as SQLInputValue[];
      return {
        reader: stmt.columns().length > 0,
        all: (p) => stmt.all(...params(p)),
        run: (p) => stmt.run(...params(p)),
        iterate: (p) => stmt.iterate(...params(p)),
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
