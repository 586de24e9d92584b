import {
  type Expression,
  expressionBuilder,
  type Insertable,
  type Kysely,
  type Selectable,
  type SqlBool,
  sql,
  type Updateable,
} from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { grantedTo } from '../../db/grant-scope.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import type { AccountScope } from '../account/principal.ts';
import type { StackScriptTable } from './stackscript.table.ts';

export type StackScriptRow = Selectable<StackScriptTable>;
/** A row as a caller sees it: `mine` is 1 when the caller's account owns it and the caller may use it. */
export type VisibleStackScriptRow = StackScriptRow & { mine: number };

/**
 * Scripts the caller owns: its account's, and for a restricted user only those it holds a grant on.
 * Nobody owns anything when the caller is anonymous (scope null).
 */
function owned(scope: AccountScope | null): Expression<SqlBool> {
  const eb = expressionBuilder<Database, 'stackscripts'>();
  if (scope === null) return sql<SqlBool>`1 = 0`;
  const account = eb('stackscripts.account_id', '=', scope.accountId);
  if (scope.restrictedUserId === null) return account;
  return eb.and([account, grantedTo(scope, 'stackscript', 'stackscripts.id')]);
}

function filterSpec(scope: AccountScope | null): FilterSpec {
  const mine = owned(scope);
  return {
    fields: {
      label: { column: 'stackscripts.label', type: 'string' },
      description: { column: 'stackscripts.description', type: 'string' },
      rev_note: { column: 'stackscripts.rev_note', type: 'string' },
      is_public: { column: 'stackscripts.is_public', type: 'boolean' },
      deployments_total: { column: 'stackscripts.deployments_total', type: 'integer' },
      username: { column: 'stackscripts.username', type: 'string' },
      created: { column: 'stackscripts.created', type: 'datetime' },
      updated: { column: 'stackscripts.updated', type: 'datetime' },
      mine: {
        column: 'mine',
        type: 'boolean',
        custom: (op, value) => {
          // `mine` is never null: equal to null matches nothing, unequal to it everything.
          if (value === null) return op === 'neq' ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
          return (op === 'eq') === (value === true) ? sql<SqlBool>`(${mine})` : sql<SqlBool>`not (${mine})`;
        },
      },
    },
    defaultOrder: { column: 'stackscripts.id', direction: 'asc' },
    tiebreak: 'stackscripts.id',
  };
}

/** Public scripts of every account, plus those the caller owns. */
function visibleStackScripts(db: Kysely<Database>, scope: AccountScope | null) {
  const mine = owned(scope);
  return db
    .selectFrom('stackscripts')
    .selectAll('stackscripts')
    .select(sql<number>`case when ${mine} then 1 else 0 end`.as('mine'))
    .where((eb) => eb.or([eb('stackscripts.is_public', '=', 1), mine]));
}

export function listVisibleStackScripts(db: Kysely<Database>, scope: AccountScope | null, request: PageRequest) {
  return paginate(visibleStackScripts(db, scope), request, filterSpec(scope));
}

export function findVisibleStackScript(
  db: Kysely<Database>,
  scope: AccountScope | null,
  id: number,
): Promise<VisibleStackScriptRow | undefined> {
  return visibleStackScripts(db, scope).where('stackscripts.id', '=', id).executeTakeFirst();
}

export function insertStackScript(db: Kysely<Database>, values: Insertable<StackScriptTable>): Promise<StackScriptRow> {
  return db.insertInto('stackscripts').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateStackScriptRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<StackScriptTable>,
): Promise<StackScriptRow> {
  return db
    .updateTable('stackscripts')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteStackScriptRow(db: Kysely<Database>, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('stackscripts').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Counts one more deployment, in one statement so concurrent node creations never lose a count. */
export async function incrementDeployments(db: Kysely<Database>, id: number): Promise<void> {
  await db
    .updateTable('stackscripts')
    .set((eb) => ({
      deployments_total: eb('deployments_total', '+', 1),
      deployments_active: eb('deployments_active', '+', 1),
    }))
    .where('id', '=', id)
    .execute();
}

/** One node deployed from the script is gone. */
export async function decrementActiveDeployments(db: Kysely<Database>, id: number): Promise<void> {
  await db
    .updateTable('stackscripts')
    .set((eb) => ({ deployments_active: eb('deployments_active', '-', 1) }))
    .where('id', '=', id)
    .where('deployments_active', '>', 0)
    .execute();
}

/** The account's scripts with their labels (the grants registry): all, or those among `ids`. */
export async function findStackScriptEntities(
  db: Kysely<Database>,
  accountId: number,
  ids?: readonly number[],
): Promise<{ id: number; label: string }[]> {
  if (ids?.length === 0) return [];
  let q = db.selectFrom('stackscripts').select(['id', 'label']).where('account_id', '=', accountId).orderBy('id');
  if (ids) q = q.where('id', 'in', [...ids]);
  return q.execute();
}
