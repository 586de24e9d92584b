import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { AccountScope } from '../domain/account/principal.ts';

/**
 * The one definition of "a restricted user may see this entity": it holds a grant on it (a
 * read_write one when `writable`). Always true for unrestricted users. `idColumn` is the
 * entity's id column in the outer query (`nodes.id`, `images.num`, ...).
 */
export function grantedTo(scope: AccountScope, entityType: string, idColumn: string, writable = false): RawBuilder<SqlBool> {
  if (scope.restrictedUserId === null) return sql<SqlBool>`1 = 1`;
  return sql<SqlBool>`exists (select 1 from entity_grants g where g.account_id = ${scope.accountId} and g.user_id = ${
    scope.restrictedUserId
  } and g.entity_type = ${entityType} and g.entity_id = ${sql.ref(idColumn)}${
    writable ? sql` and g.permissions = 'read_write'` : sql``
  })`;
}

/** The permission the scope's restricted user holds on the entity (null when none), as a column. */
export function grantPermission(scope: AccountScope & { restrictedUserId: number }, entityType: string, idColumn: string) {
  return sql<string | null>`(select g.permissions from entity_grants g where g.account_id = ${scope.accountId} and g.user_id = ${
    scope.restrictedUserId
  } and g.entity_type = ${entityType} and g.entity_id = ${sql.ref(idColumn)})`;
}
