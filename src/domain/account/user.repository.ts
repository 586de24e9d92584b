import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import type { UserTable } from './user.table.ts';

export type UserRow = Selectable<UserTable>;

const FILTER: FilterSpec = {
  fields: {
    username: { column: 'users.username', type: 'string' },
    // Not marked filterable by the reference: the vendor's console orders its users by it.
    email: { column: 'users.email', type: 'string' },
  },
  defaultOrder: { column: 'users.id', direction: 'asc' },
  tiebreak: 'users.id',
};

export async function insertUser(db: Kysely<Database>, values: Insertable<UserTable>): Promise<UserRow> {
  return db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
}

export function listUsers(db: Kysely<Database>, accountId: number, request: PageRequest) {
  return paginate(db.selectFrom('users').selectAll('users').where('users.account_id', '=', accountId), request, FILTER);
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

/**
 * The one lookup not cut to an account: the operator's CLI names a user by its username alone,
 * which is unique across the service.
 */
export async function findUserByNameInAnyAccount(db: Kysely<Database>, username: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
}

/** Usernames are unique across the whole service, ignoring case; `exceptUserId` lets a user change its own case. */
export async function usernameTaken(db: Kysely<Database>, username: string, exceptUserId?: number): Promise<boolean> {
  let q = db.selectFrom('users').select('id').where(sql<string>`lower(username)`, '=', username.toLowerCase());
  if (exceptUserId !== undefined) q = q.where('id', '<>', exceptUserId);
  return (await q.executeTakeFirst()) !== undefined;
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

/** A user's last sign-in; nothing when the user is gone meanwhile. */
export async function setLastLogin(db: Kysely<Database>, accountId: number, userId: number, at: string): Promise<void> {
  await db.updateTable('users').set({ last_login: at }).where('account_id', '=', accountId).where('id', '=', userId).execute();
}

/** Its tokens, SSH keys and entity grants go with it (foreign keys cascade). */
export async function deleteUser(db: Kysely<Database>, accountId: number, userId: number): Promise<void> {
  await db.deleteFrom('users').where('account_id', '=', accountId).where('id', '=', userId).execute();
}
