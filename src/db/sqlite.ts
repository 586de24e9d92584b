import path from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { type SqliteDatabase, SqliteDialect } from 'kysely';
import { DATABASE_FILE, makePrivateDir, touchPrivateFile } from '../data-dir.ts';

/** Prepared statements kept per connection: compiling a statement costs more than running most of them. */
const STATEMENT_CACHE_SIZE = 500;

type Row = Record<string, unknown>;
type RowOf = (values: readonly unknown[]) => Row;

/**
 * Turns the value arrays of a statement's rows into objects of one fixed shape. node:sqlite's own row
 * objects have a null prototype and are built property by property, which costs more than the
 * query itself for wide rows; arrays and one compiled constructor a statement are faster to make
 * and to read. Null when a column name cannot be an object literal key (then rows come as objects).
 */
function rowConstructor(names: readonly string[]): RowOf | null {
  if (names.includes('__proto__')) return null;
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${fields} };`) as RowOf;
}

interface Prepared {
  stmt: StatementSync;
  reader: boolean;
  row: RowOf | null;
}

/**
 * Kysely's SqliteDialect expects a better-sqlite3-style database; this adapts node:sqlite to it.
 * Statements are prepared once per SQL text and reused (least recently used dropped past the cache
 * size); a statement runs to completion inside `all`/`run`, so reuse is safe on the one connection.
 * `iterate` gets a statement of its own, since a stream may be left open while other queries run.
 */
function adapt(db: DatabaseSync): SqliteDatabase {
  const cache = new Map<string, Prepared>();
  const params = (p: ReadonlyArray<unknown>) => p as SQLInputValue[];
  const prepare = (sql: string): Prepared => {
    const stmt = db.prepare(sql);
    const columns = stmt.columns();
    const row = columns.length > 0 ? rowConstructor(columns.map((c) => c.name)) : null;
    if (row) stmt.setReturnArrays(true);
    return { stmt, reader: columns.length > 0, row };
  };
  const cached = (sql: string): Prepared => {
    let entry = cache.get(sql);
    if (entry) {
      cache.delete(sql);
    } else {
      entry = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, entry);
    return entry;
  };
  const rows = ({ row }: Prepared, values: unknown[]): unknown[] => (row ? values.map((v) => row(v as unknown[])) : values);
  return {
    close: () => db.close(),
    prepare(sql) {
      const entry = cached(sql);
      return {
        reader: entry.reader,
        all: (p) => rows(entry, entry.stmt.all(...params(p))),
        run: (p) => entry.stmt.run(...params(p)),
        *iterate(p) {
          const own = prepare(sql);
          for (const value of own.stmt.iterate(...params(p))) yield own.row ? own.row(value as unknown as unknown[]) : value;
        },
      };
    },
  };
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, DATABASE_FILE);
}

export function createSqliteDialect(file: string): SqliteDialect {
  makePrivateDir(path.dirname(file));
  // SQLite makes its -wal and -shm files with the mode of the database file.
  touchPrivateFile(file);
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  // 16 MB of page cache (the default is 2 MB): with 100 000 nodes the b-tree pages a node create
  // touches no longer fit, and each miss is a read from the file.
  db.exec('PRAGMA cache_size = -16000');
  // Checkpoint every ~40 MB of WAL rather than every ~4 MB: pages that every write touches (index
  // edges, the job queue) are copied back and synced once for many commits instead of every ~30.
  db.exec('PRAGMA wal_autocheckpoint = 10000');
  return new SqliteDialect({ database: adapt(db) });
}
