import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { countRows } from '../../db/count.ts';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { grantedTo, grantPermission } from '../../db/grant-scope.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import type { Permission } from '../account/grants.ts';
import type { AccountScope } from '../account/principal.ts';
import { tagsFilterField } from '../tags/tag-filter.ts';
import type { FirewallTable } from './firewall.table.ts';

export type FirewallRow = Selectable<FirewallTable>;

/** The reference's filterable firewall fields. */
const FILTER: FilterSpec = {
  fields: {
    id: { column: 'firewalls.id', type: 'integer' },
    label: { column: 'firewalls.label', type: 'string' },
    // Not marked filterable by the reference: the vendor's console orders its firewalls by it.
    status: { column: 'firewalls.status', type: 'string' },
    created: { column: 'firewalls.created', type: 'datetime' },
    updated: { column: 'firewalls.updated', type: 'datetime' },
    tags: tagsFilterField('firewall', 'firewalls.id'),
  },
  defaultOrder: { column: 'firewalls.id', direction: 'asc' },
  tiebreak: 'firewalls.id',
};

/** The account's firewalls; a restricted user sees only those it holds a grant on. */
function visibleFirewalls(db: Kysely<Database>, scope: AccountScope) {
  return db
    .selectFrom('firewalls')
    .selectAll('firewalls')
    .where('firewalls.account_id', '=', scope.accountId)
    .where(grantedTo(scope, 'firewall', 'firewalls.id'));
}

export function listFirewalls(db: Kysely<Database>, scope: AccountScope, request: PageRequest): Promise<Page<FirewallRow>> {
  return paginate(visibleFirewalls(db, scope), request, FILTER);
}

/** The visible firewalls assigned to a node. */
export function listNodeFirewalls(
  db: Kysely<Database>,
  scope: AccountScope,
  nodeId: number,
  request: PageRequest,
): Promise<Page<FirewallRow>> {
  const assigned = visibleFirewalls(db, scope).where((eb) =>
    eb.exists(
      eb
        .selectFrom('firewall_devices')
        .select('firewall_devices.id')
        .whereRef('firewall_devices.firewall_id', '=', 'firewalls.id')
        .where('firewall_devices.node_id', '=', nodeId),
    ),
  );
  return paginate(assigned, request, FILTER);
}

/** A firewall the scope may see, with the caller's permission on it (read_write for unrestricted users). */
export async function findFirewallForScope(
  db: Kysely<Database>,
  scope: AccountScope,
  id: number,
): Promise<{ row: FirewallRow; permission: Permission } | undefined> {
  const userId = scope.restrictedUserId;
  const base = db.selectFrom('firewalls').selectAll('firewalls').where('account_id', '=', scope.accountId).where('id', '=', id);
  if (userId === null) {
    const row = await base.executeTakeFirst();
    return row && { row, permission: 'read_write' };
  }
  const found = await base
    .select(grantPermission({ ...scope, restrictedUserId: userId }, 'firewall', 'firewalls.id').as('permission'))
    .executeTakeFirst();
  if (!found?.permission) return undefined;
  const { permission, ...row } = found;
  return { row, permission: permission as Permission };
}

export async function firewallLabelTaken(db: Kysely<Database>, accountId: number, label: string, exceptId?: number) {
  let q = db.selectFrom('firewalls').select('id').where('account_id', '=', accountId).where('label', '=', label);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** How many firewalls the account has. */
export function countFirewalls(db: Kysely<Database>, accountId: number): Promise<number> {
  return countRows(db.selectFrom('firewalls').where('account_id', '=', accountId));
}

export function insertFirewall(db: Kysely<Database>, values: Insertable<FirewallTable>): Promise<FirewallRow> {
  return db.insertInto('firewalls').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateFirewallRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<FirewallTable>,
): Promise<FirewallRow> {
  return db
    .updateTable('firewalls')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes a firewall; its devices go with it (foreign key). */
export async function deleteFirewallRow(db: Kysely<Database>, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('firewalls').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The account's firewalls as grant entities (id and label): all of them, or those among `ids`. */
export async function findFirewallEntities(
  db: Kysely<Database>,
  accountId: number,
  ids?: readonly number[],
): Promise<{ id: number; label: string }[]> {
  if (ids?.length === 0) return [];
  let q = db.selectFrom('firewalls').select(['id', 'label']).where('account_id', '=', accountId).orderBy('id');
  if (ids) q = q.where('id', 'in', [...ids]);
  return q.execute();
}
