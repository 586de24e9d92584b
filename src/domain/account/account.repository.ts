import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { AccountTable } from './account.table.ts';

export type AccountRow = Selectable<AccountTable>;

export async function insertAccount(db: Kysely<Database>, values: Insertable<AccountTable>): Promise<AccountRow> {
  return db.insertInto('accounts').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findAccountById(db: Kysely<Database>, accountId: number): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
}

export async function updateAccount(
  db: Kysely<Database>,
  accountId: number,
  values: Updateable<AccountTable>,
): Promise<AccountRow> {
  return db.updateTable('accounts').set(values).where('id', '=', accountId).returningAll().executeTakeFirstOrThrow();
}
