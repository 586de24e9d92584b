import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { findDomainEntities } from '../domains/domain.repository.ts';
import { findFirewallEntities } from '../firewalls/firewall.repository.ts';
import { findNodeEntities } from '../nodes/node.repository.ts';
import { findStackScriptEntities } from '../stackscripts/stackscript.repository.ts';
import { deleteGrantsOnEntity, putEntityGrant } from './entity-grant.repository.ts';
import { findImageEntities, type GrantEntity } from './grant-entity.repository.ts';
import type { GrantEntityType } from './grants.ts';
import type { AccountScope } from './principal.ts';

export type { GrantEntity };

/** The account's entities of one type, with labels: all of them, or those among `ids`. */
export type GrantEntityLookup = (db: Kysely<Database>, accountId: number, ids?: readonly number[]) => Promise<GrantEntity[]>;

/**
 * How each grantable entity type is looked up: whether an id exists in the account, and its label.
 * A resource group plugs its lookup in here when its table arrives; until then (null) ids are
 * taken as given and shown with an empty label.
 */
export const GRANT_ENTITY_LOOKUPS: Readonly<Record<GrantEntityType, GrantEntityLookup | null>> = {
  node: findNodeEntities,
  domain: findDomainEntities,
  nodebalancer: null,
  image: findImageEntities,
  longview: null,
  stackscript: findStackScriptEntities,
  volume: null,
  firewall: findFirewallEntities,
};

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
