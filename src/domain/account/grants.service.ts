import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type ErrorItem, fail } from '../../errors.ts';
import { entityKind } from '../entity-kinds.ts';
import type { GrantEntity } from './entity-access.ts';
import { type EntityGrantRow, findEntityGrants, putEntityGrant } from './entity-grant.repository.ts';
import type { GrantChangeT, Grants, UpdateGrants } from './grants.schema.ts';
import { GRANT_ENTITY_TYPES, type GrantEntityType, type Permission, parseGlobalGrants } from './grants.ts';
import type { Principal } from './principal.ts';
import { findUserById, findUserByName, type UserRow, updateUser } from './user.repository.ts';

type GrantView = Grants['node'][number];

/** Global grants of what is not offered here (databases, VPCs, child accounts): never held. */
const NOT_OFFERED_GLOBAL = { add_databases: false, add_vpcs: false, child_account_access: null } as const;
/** Entity kinds of what is not offered here: no entities, so no grants on any. */
const NOT_OFFERED_TYPES = ['database', 'vpc'] as const;

/**
 * A restricted user's grants. `every`: each entity of the account with the user's permission on it
 * (null where none), as an administrator sees them; otherwise only the entities the user holds a grant on.
 */
async function grantsOf(db: Kysely<Database>, user: UserRow, every: boolean): Promise<Grants> {
  const rows = await findEntityGrants(db, user.account_id, user.id);
  const byType = {} as Record<GrantEntityType, GrantView[]>;
  for (const type of GRANT_ENTITY_TYPES) byType[type] = await entityGrants(db, user.account_id, type, rows, every);
  return { global: { ...parseGlobalGrants(user.global_grants), ...NOT_OFFERED_GLOBAL }, ...byType, database: [], vpc: [] };
}

async function entityGrants(
  db: Kysely<Database>,
  accountId: number,
  type: GrantEntityType,
  rows: readonly EntityGrantRow[],
  every: boolean,
): Promise<GrantView[]> {
  const held = new Map(rows.filter((r) => r.entity_type === type).map((r) => [r.entity_id, r.permissions as Permission]));
  // A type this service has no table for: its ids are taken as given, with an empty label.
  const kind = entityKind(type);
  if (!kind) return [...held].map(([id, permissions]) => ({ id, permissions, label: '' }));
  const entities = every ? await kind.entities(db, accountId) : await kind.entities(db, accountId, [...held.keys()]);
  return entities.map((e) => ({ id: e.id, permissions: held.get(e.id) ?? null, label: e.label }));
}

async function restrictedUser(db: Kysely<Database>, accountId: number, username: string): Promise<UserRow | null> {
  await lockRows(db, 'users', 'username', [username]);
  const user = await findUserByName(db, accountId, username);
  if (!user) throw fail.notFound();
  return user.restricted === 1 ? user : null;
}

/** The user's grants; null for an unrestricted user, who needs none. */
export async function getUserGrants(ctx: Context, accountId: number, username: string): Promise<Grants | null> {
  const user = await restrictedUser(ctx.db, accountId, username);
  return user ? grantsOf(ctx.db, user, true) : null;
}

/** The calling user's own grants, limited to what it holds; null when unrestricted. */
export async function getProfileGrants(ctx: Context, principal: Principal): Promise<Grants | null> {
  if (!principal.restricted) return null;
  const user = await findUserById(ctx.db, principal.accountId, principal.userId);
  if (!user) throw fail.unauthorized();
  return grantsOf(ctx.db, user, false);
}

/** Sets what the request names; global flags and entity grants it leaves out stay as they were. */
export async function updateUserGrants(
  ctx: Context,
  accountId: number,
  username: string,
  changes: UpdateGrants,
): Promise<Grants> {
  return inTransaction(ctx.db, async (trx) => {
    const user = await restrictedUser(trx, accountId, username);
    if (!user) throw fail.badRequest('This user is unrestricted: it may do everything and takes no grants', 'username');
    const { add_databases, add_vpcs, child_account_access, ...globalChanges } = changes.global ?? {};
    const problems = notOfferedProblems({ add_databases, add_vpcs, child_account_access }, changes);
    for (const type of GRANT_ENTITY_TYPES) {
      const list = changes[type];
      if (list) problems.push(...(await checkEntityChanges(trx, accountId, type, list)));
    }
    if (problems.length) throw fail.invalid(problems);
    let row = user;
    if (changes.global) {
      const global = { ...parseGlobalGrants(user.global_grants), ...globalChanges };
      row = await updateUser(trx, accountId, user.id, { global_grants: JSON.stringify(global) });
    }
    for (const type of GRANT_ENTITY_TYPES) {
      for (const change of changes[type] ?? []) {
        await putEntityGrant(trx, {
          accountId,
          userId: user.id,
          entityType: type,
          entityId: change.id,
          permissions: change.permissions,
        });
      }
    }
    return grantsOf(trx, row, true);
  });
}

/**
 * What is not offered here is taken back only as the grants object shows it: false (null for
 * child_account_access) and empty lists; granting it is refused at its field.
 */
function notOfferedProblems(global: Partial<Grants['global']>, changes: UpdateGrants): ErrorItem[] {
  const problems: ErrorItem[] = [];
  if (global.add_databases) problems.push({ field: 'global.add_databases', reason: 'Databases are not offered here' });
  if (global.add_vpcs) problems.push({ field: 'global.add_vpcs', reason: 'VPCs are not offered here' });
  if (global.child_account_access) {
    problems.push({ field: 'global.child_account_access', reason: 'There are no child accounts here' });
  }
  for (const type of NOT_OFFERED_TYPES) {
    (changes[type] ?? []).forEach((c, i) => {
      problems.push({ field: `${type}[${i}].id`, reason: `No ${type} with id ${c.id} on this account` });
    });
  }
  return problems;
}

/** Every id listed once, and (for types the service already stores) an entity of this account. */
async function checkEntityChanges(
  db: Kysely<Database>,
  accountId: number,
  type: GrantEntityType,
  list: readonly GrantChangeT[],
): Promise<ErrorItem[]> {
  const problems: ErrorItem[] = [];
  const seen = new Set<number>();
  list.forEach((c, i) => {
    if (seen.has(c.id)) problems.push({ field: `${type}[${i}].id`, reason: `${type} ${c.id} is listed more than once` });
    seen.add(c.id);
  });
  const kind = entityKind(type);
  if (!kind) return problems;
  const found: GrantEntity[] = await kind.entities(db, accountId, [...seen]);
  const known = new Set(found.map((e) => e.id));
  list.forEach((c, i) => {
    if (!known.has(c.id)) problems.push({ field: `${type}[${i}].id`, reason: `No ${type} with id ${c.id} on this account` });
  });
  return problems;
}
