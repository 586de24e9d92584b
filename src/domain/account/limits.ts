import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { lockName } from '../../db/row-locks.ts';
import { fail } from '../../errors.ts';

export interface CountLimit {
  /** What is counted and whose, unique to it: `domains of account 7`. */
  key: string;
  /** The operator's limit (a CUMULO_LIMIT_* setting). */
  limit: number;
  /** How many are being added. */
  adding?: number;
  /** How many there are now, read after the lock is taken. */
  count: () => Promise<number>;
  /** The refusal: `An account may have at most 1000 domains`. */
  reason: string;
  field?: string;
}

/**
 * Refuses a create that would take a count past its limit, in the create's transaction. Creates
 * under one key take turns from here to their commit (SQLite's one writer does so already), so
 * parallel creates at the limit cannot all see room for themselves.
 */
export async function assertUnderLimit(db: Kysely<Database>, limit: CountLimit): Promise<void> {
  await lockName(db, `limit ${limit.key}`);
  if ((await limit.count()) + (limit.adding ?? 1) > limit.limit) throw fail.badRequest(limit.reason, limit.field);
}
