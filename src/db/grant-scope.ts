import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from './database.ts';

/** The account a query is cut to, and the restricted user whose grants cut it further (null: none). */
interface GrantScope {
  accountId: number;
  restrictedUserId: number | null;
}

type GrantPermission = 'read_only' | 'read_write';

/**
 * The one definition of "a restricted user may see this entity": it holds a grant on it (a
 * read_write one when `writable`). Always true for unrestricted users. `idColumn` is the
 * entity's id column in the outer query (`nodes.id`, `images.num`, ...).
 */
export function grantedTo(scope: GrantScope, entityType: string, idColumn: string, writable = false): RawBuilder<SqlBool> {
  if (scope.restrictedUserId === null) return sql<SqlBool>`1 = 1`;
  return sql<SqlBool>`exists (select 1 from entity_grants g where g.account_id = ${scope.accountId} and g.user_id = ${
    scope.restrictedUserId
  } and g.entity_type = ${entityType} and g.entity_id = ${sql.ref(idColumn)}${
    writable ? sql` and g.permissions = 'read_write'` : sql``
  })`;
}

/** The permission the scope's restricted user holds on the entity (null when none), as a column. */
export function grantPermission(scope: GrantScope & { restrictedUserId: number }, entityType: string, idColumn: string) {
  return sql<string | null>`(select g.permissions from entity_grants g where g.account_id = ${scope.accountId} and g.user_id = ${
    scope.restrictedUserId
  } and g.entity_type = ${entityType} and g.entity_id = ${sql.ref(idColumn)})`;
}

/**
 * `grantedTo` for rows that name entities of several kinds (events, tagged objects): the kind is in
 * `typeColumn`, the id in `idColumn`.
 */
export function grantedToEntityIn(scope: GrantScope, typeColumn: string, idColumn: string): RawBuilder<SqlBool> {
  if (scope.restrictedUserId === null) return sql<SqlBool>`1 = 1`;
  return sql<SqlBool>`exists (select 1 from entity_grants g where g.account_id = ${scope.accountId} and g.user_id = ${
    scope.restrictedUserId
  } and g.entity_type = ${sql.ref(typeColumn)} and g.entity_id = ${sql.ref(idColumn)})`;
}

/**
 * The permission the scope holds on one entity of its account: read_write for an unrestricted user,
 * a restricted user's grant otherwise (null when it holds none).
 */
export async function permissionOf(
  db: Kysely<Database>,
  scope: GrantScope,
  entityType: string,
  entityId: number,
): Promise<GrantPermission | null> {
  if (scope.restrictedUserId === null) return 'read_write';
  const row = await db
    .selectFrom('entity_grants')
    .select('permissions')
    .where('account_id', '=', scope.accountId)
    .where('user_id', '=', scope.restrictedUserId)
    .where('entity_type', '=', entityType)
    .where('entity_id', '=', entityId)
    .executeTakeFirst();
  return (row?.permissions as GrantPermission | undefined) ?? null;
}
