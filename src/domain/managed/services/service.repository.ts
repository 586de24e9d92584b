import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { countRows } from '../../../db/count.ts';
import type { Database } from '../../../db/database.ts';
import type { FilterSpec } from '../../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../../db/paginate.ts';
import { lockRows } from '../../../db/row-locks.ts';
import type { ManagedServiceTable } from './service.table.ts';

export type ServiceRow = Selectable<ManagedServiceTable>;

/** Only `label` is filterable, as on every collection of labelled objects. */
const FILTER: FilterSpec = {
  fields: { label: { column: 'managed_services.label', type: 'string' } },
  defaultOrder: { column: 'managed_services.id', direction: 'asc' },
  tiebreak: 'managed_services.id',
};

export function listServices(db: Kysely<Database>, accountId: number, request: PageRequest): Promise<Page<ServiceRow>> {
  const query = db
    .selectFrom('managed_services')
    .selectAll('managed_services')
    .where('managed_services.account_id', '=', accountId);
  return paginate(query, request, FILTER);
}

/** One of the account's services; in a transaction, locked first so that changes to it take turns. */
export async function findService(db: Kysely<Database>, accountId: number, id: number): Promise<ServiceRow | undefined> {
  await lockRows(db, 'managed_services', 'id', [id]);
  return db
    .selectFrom('managed_services')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A service by id alone, for its probe job; locked like `findService`. */
export async function findServiceById(db: Kysely<Database>, id: number): Promise<ServiceRow | undefined> {
  await lockRows(db, 'managed_services', 'id', [id]);
  return db.selectFrom('managed_services').selectAll().where('id', '=', id).executeTakeFirst();
}

/** How many managed services the account has. */
export function countServices(db: Kysely<Database>, accountId: number): Promise<number> {
  return countRows(db.selectFrom('managed_services').where('account_id', '=', accountId));
}

export function insertService(db: Kysely<Database>, values: Insertable<ManagedServiceTable>): Promise<ServiceRow> {
  return db.insertInto('managed_services').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateServiceRow(db: Kysely<Database>, id: number, values: Updateable<ManagedServiceTable>): Promise<ServiceRow> {
  return db.updateTable('managed_services').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteServiceRow(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('managed_services').where('id', '=', id).execute();
}
