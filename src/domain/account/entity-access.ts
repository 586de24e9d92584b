import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { type ApiError, fail } from '../../errors.ts';
import { type GrantEntityType, type Permission, permits } from './grants.ts';
import type { AccountScope } from './principal.ts';

/** An entity's id and label, as the grants object shows it. */
export interface GrantEntity {
  id: number;
  label: string;
}

/** An entity as a scope sees it, with the scope's permission on it. */
export interface FoundEntity<Row> {
  row: Row;
  permission: Permission | null;
  /** Why it may not be changed whatever the grants say (a public image, another account's script). */
  refusal?: string;
}

/**
 * A kind of entity that grants, tags, events and access checks name by type and id. Each group
 * that has one describes it here once (its `*-kind.ts`), and src/domain/entity-kinds.ts lists them.
 */
export interface EntityKind<Row = unknown> {
  type: GrantEntityType;
  /** Locks the entity's row until the transaction ends (writes to one entity take turns). */
  lock(db: Kysely<Database>, id: number): Promise<void>;
  /** The entity as the scope may see it (grant-scope.ts), or undefined when it may not. */
  find(db: Kysely<Database>, scope: AccountScope, id: number): Promise<FoundEntity<Row> | undefined>;
  /** The account's entities of the kind with their labels: all, or those among `ids` (grants). */
  entities(db: Kysely<Database>, accountId: number, ids?: readonly number[]): Promise<GrantEntity[]>;
  /** For a kind tags may be put on: the tag create body's field, and the objects as the API shows them. */
  tagging?: {
    field: 'nodes' | 'domains';
    /** How a refusal names one: `Node 5 does not exist ...`. */
    noun: string;
    view(db: Kysely<Database>, ctx: Context, accountId: number, ids: readonly number[]): Promise<{ id: number }[]>;
  };
}

/**
 * The one per-entity access check: an entity of another account, or one a restricted user holds no
 * grant on, is `missing` (a 404, or a 400 where a body names it); a read_only grant where the
 * operation writes is a 403. A write locks the entity's row first, so writes to one entity (and to
 * what hangs off it) take turns, each reading what the one before committed: one deleted meanwhile
 * is missing.
 */
export async function entityFor<Row>(
  db: Kysely<Database>,
  kind: EntityKind<Row>,
  scope: AccountScope,
  id: number,
  need: Permission,
  how: { what: string; missing: () => ApiError },
): Promise<Row> {
  if (need === 'read_write') await kind.lock(db, id);
  const found = await kind.find(db, scope, id);
  if (!found) throw how.missing();
  if (need === 'read_write' && found.refusal) throw fail.forbidden(found.refusal);
  if (!permits(found.permission, need)) throw fail.forbidden(`Unauthorized: this needs read_write access to ${how.what}`);
  return found.row;
}
