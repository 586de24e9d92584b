import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database } from './database.ts';

/**
 * Group commit for the embedded database. SQLite runs one transaction at a time on its one
 * connection, and a commit costs more than most of the work before it (every page the transaction
 * touched goes to the WAL). Work waits for the writer anyway, so the work queued in one turn of the
 * event loop shares one transaction instead of opening its own: each unit runs alone, in order, inside a
 * savepoint of one shared transaction, and is undone alone if it fails (its savepoint rolled back,
 * as its own transaction would have been). No unit is answered before the commit that holds it:
 * what a caller sees as done is on disk. If the shared transaction fails, every unit in it fails.
 */

type Work = (trx: Transaction<Database>) => Promise<unknown>;

interface Unit {
  work: Work;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Units a transaction takes at most: the statements waiting for the connection get it between two groups. */
const MAX_UNITS = 16;

const SAVEPOINT = CompiledQuery.raw('savepoint cumulo_unit');
const RELEASE = CompiledQuery.raw('release cumulo_unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to cumulo_unit');

class CommitGroups {
  #db: Kysely<Database>;
  #queue: Unit[] = [];
  #running = false;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.#running) return;
      this.#running = true;
      // On the next turn of the event loop: the requests read in this turn queue their work first.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#group();
    } finally {
      this.#running = false;
    }
  }

  /** One transaction over the units queued by the time each one before has run. */
  async #group(): Promise<void> {
    const taken: { unit: Unit; ok: boolean; value: unknown }[] = [];
    try {
      await this.#db.transaction().execute(async (trx) => {
        while (taken.length < MAX_UNITS) {
          const unit = this.#queue.shift();
          if (!unit) break;
          const entry = { unit, ok: false, value: undefined as unknown };
          taken.push(entry);
          await trx.executeQuery(SAVEPOINT);
          try {
            entry.value = await unit.work(trx);
            entry.ok = true;
          } catch (error) {
            entry.value = error;
          }
          // A savepoint that cannot be rolled back means the transaction is lost: every unit in it fails below.
          if (!entry.ok) await trx.executeQuery(ROLLBACK_TO);
          await trx.executeQuery(RELEASE);
        }
      });
    } catch (error) {
      for (const { unit, ok, value } of taken) unit.reject(ok || value === undefined ? error : value);
      return;
    }
    for (const { unit, ok, value } of taken) (ok ? unit.resolve : unit.reject)(value);
  }
}

const groups = new WeakMap<Kysely<Database>, CommitGroups>();

/** Runs `work` in a savepoint of a transaction it may share with other work (SQLite only). */
export function inCommitGroup<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  let g = groups.get(db);
  if (!g) {
    g = new CommitGroups(db);
    groups.set(db, g);
  }
  return g.run(work);
}
