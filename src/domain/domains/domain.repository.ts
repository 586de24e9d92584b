import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { countRows } from '../../db/count.ts';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { grantedTo, grantPermission } from '../../db/grant-scope.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import type { Permission } from '../account/grants.ts';
import type { AccountScope } from '../account/principal.ts';
import { tagsFilterField } from '../tags/tag-filter.ts';
import type { DomainTable } from './domain.table.ts';

export type DomainRow = Selectable<DomainTable>;

/** The reference's filterable domain fields. */
const FILTER: FilterSpec = {
  fields: {
    // Names are stored in lower case.
    domain: { column: 'domains.domain', type: 'string', normalize: (v) => v.toLowerCase() },
    group: { column: 'domains.domain_group', type: 'string' },
    tags: tagsFilterField('domain', 'domains.id'),
    // Not marked filterable by the reference; clients order and page by them (the vendor's console
    // sorts its domain table by status and type too).
    created: { column: 'domains.created', type: 'datetime' },
    status: { column: 'domains.status', type: 'string' },
    type: { column: 'domains.type', type: 'string' },
    updated: { column: 'domains.updated', type: 'datetime' },
  },
  defaultOrder: { column: 'domains.id', direction: 'asc' },
  tiebreak: 'domains.id',
};

/** The account's domains; a restricted user sees only those it holds a grant on. */
export function listDomains(db: Kysely<Database>, scope: AccountScope, request: PageRequest): Promise<Page<DomainRow>> {
  const visible = db
    .selectFrom('domains')
    .selectAll('domains')
    .where('domains.account_id', '=', scope.accountId)
    .where(grantedTo(scope, 'domain', 'domains.id'));
  return paginate(visible, request, FILTER);
}

/** A domain the scope may see, with the caller's permission on it (read_write for unrestricted users). */
export async function findDomainForScope(
  db: Kysely<Database>,
  scope: AccountScope,
  id: number,
): Promise<{ row: DomainRow; permission: Permission } | undefined> {
  const userId = scope.restrictedUserId;
  const base = db.selectFrom('domains').selectAll('domains').where('account_id', '=', scope.accountId).where('id', '=', id);
  if (userId === null) {
    const row = await base.executeTakeFirst();
    return row && { row, permission: 'read_write' };
  }
  const found = await base
    .select(grantPermission({ ...scope, restrictedUserId: userId }, 'domain', 'domains.id').as('permission'))
    .executeTakeFirst();
  if (!found?.permission) return undefined;
  const { permission, ...row } = found;
  return { row, permission: permission as Permission };
}

/** Some of the account's domains, by id. */
export async function findDomainsOfAccount(
  db: Kysely<Database>,
  accountId: number,
  ids: readonly number[],
): Promise<DomainRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('domains')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
}

/** A domain of any account by id (the render job's). */
export function findDomainById(db: Kysely<Database>, id: number): Promise<DomainRow | undefined> {
  return db.selectFrom('domains').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The domain of any account named `domain` (lower case). */
export function findDomainNamed(db: Kysely<Database>, domain: string): Promise<DomainRow | undefined> {
  return db.selectFrom('domains').selectAll().where(sql<string>`lower(domain)`, '=', domain).executeTakeFirst();
}

/** Whether any account holds `domain` (lower case), other than the domain `exceptId`. */
export async function domainNameTaken(db: Kysely<Database>, domain: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('domains').select('id').where(sql<string>`lower(domain)`, '=', domain);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * The served domain among `names` with the longest name, of any account (the nameserver's zones): an
 * active master, or an active slave whose copy of its master's zone has not expired at `now`.
 */
export function findServedDomain(db: Kysely<Database>, names: readonly string[], now: string): Promise<DomainRow | undefined> {
  return db
    .selectFrom('domains as d')
    .leftJoin('domain_slave_zones as s', 's.domain_id', 'd.id')
    .selectAll('d')
    .where(sql<string>`lower(d.domain)`, 'in', [...names])
    .where('d.status', '=', 'active')
    .where((eb) =>
      eb.or([
        eb('d.type', '=', 'master'),
        eb.and([eb('d.type', '=', 'slave'), eb('s.origin', '=', eb.ref('d.domain')), eb('s.expires', '>', now)]),
      ]),
    )
    .orderBy(sql`length(d.domain)`, 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** How many domains the account has. */
export function countDomains(db: Kysely<Database>, accountId: number): Promise<number> {
  return countRows(db.selectFrom('domains').where('account_id', '=', accountId));
}

export function insertDomain(db: Kysely<Database>, values: Insertable<DomainTable>): Promise<DomainRow> {
  return db.insertInto('domains').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateDomainRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<DomainTable>,
): Promise<DomainRow> {
  return db
    .updateTable('domains')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Deletes a domain; its records and rendered zone go with it (foreign keys). */
export async function deleteDomainRow(db: Kysely<Database>, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('domains').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The account's domains as grant entities (id, and the name as label): all of them, or those among `ids`. */
export async function findDomainEntities(
  db: Kysely<Database>,
  accountId: number,
  ids?: readonly number[],
): Promise<{ id: number; label: string }[]> {
  if (ids?.length === 0) return [];
  let q = db.selectFrom('domains').select(['id', 'domain as label']).where('account_id', '=', accountId).orderBy('id');
  if (ids) q = q.where('id', 'in', [...ids]);
  return q.execute();
}
