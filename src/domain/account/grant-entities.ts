import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { deleteGrantsOnEntity, putEntityGrant } from './entity-grant.repository.ts';
import type { GrantEntityType } from './grants.ts';
import type { AccountScope } from './principal.ts';

/** A restricted user may use and change what it creates: read_write on the new entity. */
export async function grantToCreator(
  db: Kysely<Database>,
  scope: AccountScope,
  type: GrantEntityType,
  entityId: number,
): Promise<void> {
  if (scope.restrictedUserId === null) return;
  await putEntityGrant(db, {
    accountId: scope.accountId,
    userId: scope.restrictedUserId,
    entityType: type,
    entityId,
    permissions: 'read_write',
  });
}

/** An entity is being deleted: no user keeps a grant on it. */
export async function revokeEntityGrants(
  db: Kysely<Database>,
  accountId: number,
  type: GrantEntityType,
  entityId: number,
): Promise<void> {
  await deleteGrantsOnEntity(db, accountId, type, entityId);
}
