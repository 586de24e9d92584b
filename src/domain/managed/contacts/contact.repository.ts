import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { FilterSpec } from '../../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../../db/paginate.ts';
import { lockRows } from '../../../db/row-locks.ts';
import type { ManagedContactTable } from './contact.table.ts';

export type ContactRow = Selectable<ManagedContactTable>;

/** The reference's filterable contact field. */
const FILTER: FilterSpec = {
  fields: { group: { column: 'managed_contacts.contact_group', type: 'string' } },
  defaultOrder: { column: 'managed_contacts.id', direction: 'asc' },
  tiebreak: 'managed_contacts.id',
};

export function listContacts(db: Kysely<Database>, accountId: number, request: PageRequest): Promise<Page<ContactRow>> {
  const query = db
    .selectFrom('managed_contacts')
    .selectAll('managed_contacts')
    .where('managed_contacts.account_id', '=', accountId);
  return paginate(query, request, FILTER);
}

/** One of the account's contacts; in a transaction, locked first so that changes to it take turns. */
export async function findContact(db: Kysely<Database>, accountId: number, id: number): Promise<ContactRow | undefined> {
  await lockRows(db, 'managed_contacts', 'id', [id]);
  return db
    .selectFrom('managed_contacts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function insertContact(db: Kysely<Database>, values: Insertable<ManagedContactTable>): Promise<ContactRow> {
  return db.insertInto('managed_contacts').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateContactRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<ManagedContactTable>,
): Promise<ContactRow> {
  return db
    .updateTable('managed_contacts')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteContactRow(db: Kysely<Database>, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('managed_contacts').where('account_id', '=', accountId).where('id', '=', id).execute();
}
