import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Permission } from './grants.ts';
import type { EntityGrantTable } from './user.table.ts';

export type EntityGrantRow = Selectable<EntityGrantTable>;

export async function findEntityGrants(db: Kysely<Database>, accountId: number, userId: number): Promise<EntityGrantRow[]> {
  return db
    .selectFrom('entity_grants')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .orderBy('entity_type')
    .orderBy('entity_id')
    .execute();
}

/** Sets one grant, or removes it when `permissions` is null. */
export async function putEntityGrant(
  db: Kysely<Database>,
  grant: { accountId: number; userId: number; entityType: string; entityId: number; permissions: Permission | null },
): Promise<void> {
  await db
    .deleteFrom('entity_grants')
    .where('account_id', '=', grant.accountId)
    .where('user_id', '=', grant.userId)
    .where('entity_type', '=', grant.entityType)
    .where('entity_id', '=', grant.entityId)
    .execute();
  if (grant.permissions === null) return;
  await db
    .insertInto('entity_grants')
    .values({
      account_id: grant.accountId,
      user_id: grant.userId,
      entity_type: grant.entityType,
      entity_id: grant.entityId,
      permissions: grant.permissions,
    })
    .execute();
}

export async function deleteEntityGrantsOf(db: Kysely<Database>, accountId: number, userId: number): Promise<void> {
  await db.deleteFrom('entity_grants').where('account_id', '=', accountId).where('user_id', '=', userId).execute();
}

/** Removes every user's grant on one entity (the entity is being deleted). */
export async function deleteGrantsOnEntity(
  db: Kysely<Database>,
  accountId: number,
  entityType: string,
  entityId: number,
): Promise<void> {
  await db
    .deleteFrom('entity_grants')
    .where('account_id', '=', accountId)
    .where('entity_type', '=', entityType)
    .where('entity_id', '=', entityId)
    .execute();
}
