import { type Kysely, PostgresAdapter, type Transaction } from 'kysely';
import { fail } from '../errors.ts';
import { inCommitGroup } from './commit-group.ts';
import type { Database } from './database.ts';

/** How often work whose transaction lost a race runs again before the request is answered 503. */
const MAX_ATTEMPTS = 12;
/** A unique violation whose check ran first is a race lost once; running again lets the check see the winner. */
const MAX_UNIQUE_ATTEMPTS = 3;

// PostgreSQL's SQLSTATEs for a transaction that lost a race and is safe to run again.
const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
const UNIQUE_VIOLATION = '23505';

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `db` talks to PostgreSQL (for code that has a Kysely instance, not the context's `dbKind`). */
export function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` in one transaction. SQLite has one writer at a time, so its transactions are serial
 * (and share commits: src/db/commit-group.ts).
 * PostgreSQL runs them side by side (read committed), and what keeps parallel requests on one object
 * acting as if one at a time is this: writers lock the rows they change before reading them
 * (`lockRows`; a node through `nodeFor`), and a transaction the database rolls back because it lost
 * a race (a deadlock, a serialization failure, a unique violation from a concurrent insert) runs
 * again from the start, where its checks now see what the winner committed (the label-taken 400).
 *
 * `work` may therefore run more than once: it must change nothing but the database.
 * Called inside a transaction, it joins it.
 */
export async function inTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Transaction<Database>);
  if (!isPostgres(db)) return inCommitGroup(db, work);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      const state = sqlState(error);
      const lostRace = state === SERIALIZATION_FAILURE || state === DEADLOCK_DETECTED;
      const retry = lostRace ? attempt < MAX_ATTEMPTS : state === UNIQUE_VIOLATION && attempt < MAX_UNIQUE_ATTEMPTS;
      if (retry) {
        // Not the seeded random stream: how often a race is lost does not depend on the seed.
        await pause(Math.random() * Math.min(2 ** attempt, 50));
        continue;
      }
      if (lostRace) throw fail.unavailable('Too many concurrent changes to the same objects; try again');
      throw error;
    }
  }
}
