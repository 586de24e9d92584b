import path from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { DATABASE_FILE, makePrivateDir, touchPrivateFile } from '../data-dir.ts';
import type { DirectRead } from './direct-read.ts';

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
 * One node:sqlite connection with its statements prepared once per SQL text and reused (least
 * recently used dropped past the cache size). A statement runs to completion inside one call, so
 * reuse is safe; a stream gets a statement of its own, since it may be left open while others run.
 */
class Connection {
  readonly db: DatabaseSync;
  #cache = new Map<string, Prepared>();

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  #prepare(sql: string): Prepared {
    const stmt = this.db.prepare(sql);
    const columns = stmt.columns();
    const row = columns.length > 0 ? rowConstructor(columns.map((c) => c.name)) : null;
    if (row) stmt.setReturnArrays(true);
    return { stmt, reader: columns.length > 0, row };
  }

  #cached(sql: string): Prepared {
    let entry = this.#cache.get(sql);
    if (entry) {
      this.#cache.delete(sql);
    } else {
      entry = this.#prepare(sql);
      if (this.#cache.size >= STATEMENT_CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value as string);
    }
    this.#cache.set(sql, entry);
    return entry;
  }

  /** Runs a statement; with `arrays`, a read's rows are arrays of their columns' values, in the select's order. */
  execute(query: CompiledQuery, arrays = false): QueryResult<unknown> {
    const entry = this.#cached(query.sql);
    const params = query.parameters as SQLInputValue[];
    if (entry.reader) {
      const values = entry.stmt.all(...params);
      const { row } = entry;
      return { rows: row && !arrays ? values.map((v) => row(v as unknown as unknown[])) : values };
    }
    const { changes, lastInsertRowid } = entry.stmt.run(...params);
    return { insertId: BigInt(lastInsertRowid), numAffectedRows: BigInt(changes), rows: [] };
  }

  *stream(query: CompiledQuery): Generator<unknown> {
    const own = this.#prepare(query.sql);
    for (const value of own.stmt.iterate(...(query.parameters as SQLInputValue[]))) {
      yield own.row ? own.row(value as unknown as unknown[]) : value;
    }
  }
}

/** The one writer: whoever holds it runs a transaction or a write; the others wait in arrival order. */
class WriteLock {
  #held = false;
  #waiting: (() => void)[] = [];

  get held(): boolean {
    return this.#held;
  }

  acquire(): Promise<void> | undefined {
    if (!this.#held) {
      this.#held = true;
      return undefined;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

/** A plain read, which may run on the read connection outside a transaction (a CTE might write: it goes to the writer). */
const PLAIN_READ = /^\s*select\b/i;

/**
 * What Kysely gets for each query or transaction. In a transaction everything runs on the write
 * connection, which the transaction holds from begin to end. Outside one, a read runs at once on the
 * read connection (in WAL mode it sees the last commit and never waits for the writer), and a write
 * takes the write lock for its one statement.
 */
class Session implements DatabaseConnection {
  #driver: NodeSqliteDriver;
  inTransaction = false;

  constructor(driver: NodeSqliteDriver) {
    this.#driver = driver;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const { writer, reader, lock } = this.#driver.connections();
    if (this.inTransaction) return writer.execute(query) as QueryResult<R>;
    if (PLAIN_READ.test(query.sql)) return reader.execute(query) as QueryResult<R>;
    const waiting = lock.acquire();
    if (waiting) await waiting;
    try {
      return writer.execute(query) as QueryResult<R>;
    } finally {
      lock.release();
    }
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const { writer, reader } = this.#driver.connections();
    const connection = this.inTransaction ? writer : reader;
    for (const row of connection.stream(query)) yield { rows: [row as R] };
  }
}

function open(file: string, options: { readOnly: boolean }): DatabaseSync {
  const db = new DatabaseSync(file, { readOnly: options.readOnly });
  db.exec('PRAGMA busy_timeout = 5000');
  // 16 MB of page cache (the default is 2 MB): with 100 000 nodes the b-tree pages a node create
  // touches no longer fit, and each miss is a read from the file.
  db.exec('PRAGMA cache_size = -16000');
  return db;
}

class NodeSqliteDriver implements Driver {
  #file: string;
  #writer: Connection | null = null;
  #reader: Connection | null = null;
  #lock = new WriteLock();

  constructor(file: string) {
    this.#file = file;
  }

  async init(): Promise<void> {
    const db = open(this.#file, { readOnly: false });
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    // Checkpoint every ~40 MB of WAL rather than every ~4 MB: pages that every write touches (index
    // edges, the job queue) are copied back and synced once for many commits instead of every ~30.
    db.exec('PRAGMA wal_autocheckpoint = 10000');
    this.#writer = new Connection(db);
    // Opened after the writer has made the file a WAL database, which a read-only connection cannot do.
    this.#reader = new Connection(open(this.#file, { readOnly: true }));
  }

  /** A plain read on the read connection, at once; undefined before the database is open. */
  readNow(query: CompiledQuery, arrays: boolean): unknown[] | undefined {
    return this.#reader?.execute(query, arrays).rows;
  }

  connections(): { writer: Connection; reader: Connection; lock: WriteLock } {
    if (!this.#writer || !this.#reader) throw new Error('the database is not open');
    return { writer: this.#writer, reader: this.#reader, lock: this.#lock };
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Session(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const waiting = this.#lock.acquire();
    if (waiting) await waiting;
    try {
      // Immediate: the write lock is taken now, waiting (busy_timeout) for another process that holds
      // it, rather than at the first write, when a commit another process made after this
      // transaction's first read would fail the write at once (SQLITE_BUSY_SNAPSHOT).
      this.connections().writer.db.exec('begin immediate');
    } catch (error) {
      this.#lock.release();
      throw error;
    }
    (connection as Session).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    this.#end(connection as Session, 'commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.#end(connection as Session, 'rollback');
  }

  /**
   * Ends the session's transaction; the lock is let go even if the statement fails (SQLite then has
   * rolled back). Once only: after a failed commit Kysely asks for a rollback too, and by then the
   * lock may be another transaction's, which that rollback must not touch.
   */
  #end(session: Session, statement: 'commit' | 'rollback'): void {
    if (!session.inTransaction) return;
    const { writer } = this.connections();
    try {
      writer.db.exec(statement);
    } catch (error) {
      if (writer.db.isTransaction) writer.db.exec('rollback');
      throw error;
    } finally {
      session.inTransaction = false;
      this.#lock.release();
    }
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    this.#reader?.db.close();
    this.#writer?.db.close();
    this.#reader = null;
    this.#writer = null;
  }
}

/** Multiple connections as far as Kysely knows: the driver does its own locking, and reads need none. */
class NodeSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

class NodeSqliteDialect implements Dialect {
  #file: string;
  #driver: NodeSqliteDriver | null = null;

  constructor(file: string) {
    this.#file = file;
  }

  createDriver(): Driver {
    this.#driver = new NodeSqliteDriver(this.#file);
    return this.#driver;
  }

  /** Plain reads straight on the driver Kysely was given (src/db/direct-read.ts). */
  directRead(): DirectRead {
    return (sql, parameters, arrays = false) => this.#driver?.readNow(CompiledQuery.raw(sql, parameters as unknown[]), arrays);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }

  createAdapter() {
    return new NodeSqliteAdapter();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's own dialects take a Kysely of any schema here
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, DATABASE_FILE);
}

/**
 * The embedded database for Kysely: node:sqlite, one write connection (transactions and writes, one
 * at a time in arrival order) and one read-only connection for plain reads outside transactions.
 */
export function createSqliteDialect(file: string): Dialect & { directRead(): DirectRead } {
  makePrivateDir(path.dirname(file));
  // SQLite makes its -wal and -shm files with the mode of the database file.
  touchPrivateFile(file);
  return new NodeSqliteDialect(file);
}
