import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { lockRows } from '../../db/row-locks.ts';
import { type ApiError, fail } from '../../errors.ts';
import { type Permission, permits } from './grants.ts';

/** What a group's repository answers for one of its entities the scope asks for. */
export type ScopedLookup<Row> = (db: Kysely<Database>) => Promise<{ row: Row; permission: Permission | null } | undefined>;

/**
 * The one per-entity access check (nodes, firewalls, domains): an entity of another account, or one
 * a restricted user holds no grant on, is `missing` (a 404, or a 400 where a body names it); a
 * read_only grant where the operation writes is a 403. A write locks the entity's row first, so
 * writes to one entity (and to what hangs off it) take turns, each reading what the one before
 * committed: one deleted meanwhile is missing.
 */
export async function entityFor<Row>(
  db: Kysely<Database>,
  entity: { table: 'nodes' | 'firewalls' | 'domains'; id: number; what: string },
  need: Permission,
  lookup: ScopedLookup<Row>,
  missing: () => ApiError,
): Promise<Row> {
  if (need === 'read_write') await lockRows(db, entity.table, 'id', [entity.id]);
  const found = await lookup(db);
  if (!found) throw missing();
  if (!permits(found.permission, need)) throw fail.forbidden(`Unauthorized: this needs read_write access to ${entity.what}`);
  return found.row;
}
