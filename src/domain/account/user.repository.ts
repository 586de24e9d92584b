import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { EntityGrantTable, UserTable } from './user.table.ts';

export type UserRow = Selectable<UserTable>;
export type EntityGrantRow = Selectable<EntityGrantTable>;

export async function insertUser(db: Kysely<Database>, values: Insertable<UserTable>): Promise<UserRow> {
  return db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findUserById(db: Kysely<Database>, accountId: number, userId: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('account_id', '=', accountId).where('id', '=', userId).executeTakeFirst();
}

export async function findUserByName(db: Kysely<Database>, accountId: number, username: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('username', '=', username)
    .executeTakeFirst();
}

/** Usernames are unique across the whole service, not only within an account. */
export async function usernameTaken(db: Kysely<Database>, username: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
  return row !== undefined;
}

export async function updateUser(
  db: Kysely<Database>,
  accountId: number,
  userId: number,
  values: Updateable<UserTable>,
): Promise<UserRow> {
  return db
    .updateTable('users')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findEntityGrants(db: Kysely<Database>, accountId: number, userId: number): Promise<EntityGrantRow[]> {
  return db
    .selectFrom('entity_grants')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .orderBy('entity_type')
    .orderBy('entity_id')
    .execute();
}
