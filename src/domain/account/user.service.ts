import type { Kysely, Updateable } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { randomUuid } from '../../random.ts';
import { hashPassword, verifyPassword } from '../../secrets/password-hash.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { type EntityRef, recordEvent } from '../events/event.service.ts';
import { publicKeysOf, sshKeyLabelsOf } from '../profile/ssh-key.service.ts';
import { forgetCachedTokens } from '../profile/token.service.ts';
import { type AccountRow, insertAccount } from './account.repository.ts';
import { deleteEntityGrantsOf } from './entity-grant.repository.ts';
import { type GlobalGrants, noGlobalGrants, parseGlobalGrants } from './grants.ts';
import type { Actor, Principal } from './principal.ts';
import {
  deleteUser as deleteUserRow,
  findUserById,
  findUserByName,
  findUserByNameInAnyAccount,
  insertUser,
  listUsers,
  setLastLogin,
  type UserRow,
  updateUser as updateUserRow,
  usernameTaken,
} from './user.repository.ts';
import type { CreateUser, UpdateUser, User } from './user.schema.ts';
import type { UserTable } from './user.table.ts';

/** Global grants of the principal's user; everything for unrestricted users. */
export async function loadGlobalGrants(db: Kysely<Database>, principal: Principal): Promise<GlobalGrants> {
  if (!principal.restricted) return allGlobalGrants();
  const user = await findUserById(db, principal.accountId, principal.userId);
  return user ? parseGlobalGrants(user.global_grants) : noGlobalGrants();
}

export function allGlobalGrants(): GlobalGrants {
  const none = noGlobalGrants();
  const all = Object.fromEntries(Object.keys(none).map((k) => [k, true])) as unknown as GlobalGrants;
  return { ...all, account_access: 'read_write' };
}

export async function createAccount(db: Kysely<Database>, ctx: Context, email: string): Promise<AccountRow> {
  const now = toTimestamp(ctx.clock.nowMs());
  return insertAccount(db, {
    euuid: randomUuid(ctx.random).toUpperCase(),
    email,
    first_name: '',
    last_name: '',
    company: '',
    address_1: '',
    address_2: '',
    city: '',
    state: '',
    zip: '',
    country: 'US',
    phone: '',
    tax_id: '',
    balance: 0,
    balance_uninvoiced: 0,
    active_since: now,
    created: now,
  });
}

export interface NewUser {
  accountId: number;
  username: string;
  email: string;
  restricted: boolean;
}

export async function createUserRow(db: Kysely<Database>, ctx: Context, spec: NewUser): Promise<UserRow> {
  return insertUser(db, {
    account_id: spec.accountId,
    username: spec.username,
    email: spec.email,
    restricted: spec.restricted ? 1 : 0,
    global_grants: JSON.stringify(noGlobalGrants()),
    timezone: 'US/Eastern',
    email_notifications: 1,
    ip_whitelist_enabled: 0,
    lish_auth_method: 'keys_only',
    authorized_keys: '[]',
    created: toTimestamp(ctx.clock.nowMs()),
  });
}

export function userRowToUser(row: UserRow, sshKeys: readonly string[]): User {
  return {
    username: row.username,
    email: row.email,
    restricted: row.restricted === 1,
    ssh_keys: [...sshKeys],
    tfa_enabled: false,
    verified_phone_number: null,
    password_created: row.password_created,
    last_login: row.last_login === null ? null : { login_datetime: row.last_login, status: 'successful' },
    user_type: 'default',
  };
}

function entityOf(row: UserRow): EntityRef {
  return { id: row.id, type: 'user', label: row.username, url: `/v4/account/users/${encodeURIComponent(row.username)}` };
}

async function toUser(db: Kysely<Database>, row: UserRow): Promise<User> {
  const labels = await sshKeyLabelsOf(db, row.account_id, [row.id]);
  return userRowToUser(row, labels.get(row.id) ?? []);
}

async function existingUser(db: Kysely<Database>, accountId: number, username: string): Promise<UserRow> {
  await lockRows(db, 'users', 'username', [username]);
  const row = await findUserByName(db, accountId, username);
  if (!row) throw fail.notFound();
  return row;
}

/** The operator's lookup by username alone (usernames are unique across the service). */
export async function findUserAnywhere(ctx: Context, username: string): Promise<UserRow> {
  const row = await findUserByNameInAnyAccount(ctx.db, username);
  if (!row) throw fail.notFound(`No user named ${username}`);
  return row;
}

/** A user of the account by id, if it still exists (for what outlives a request, such as a sign-in's code). */
export function userById(ctx: Context, accountId: number, userId: number): Promise<UserRow | undefined> {
  return findUserById(ctx.db, accountId, userId);
}

/** Sets or replaces a user's password (checked against PasswordBody by the caller); only its scrypt hash is kept. */
export async function setUserPassword(ctx: Context, username: string, password: string): Promise<void> {
  const user = await findUserAnywhere(ctx, username);
  await updateUserRow(ctx.db, user.account_id, user.id, await newPassword(ctx, password));
}

/** The columns that set a user's password now: its hash and when it was set. */
async function newPassword(ctx: Context, password: string): Promise<{ password_hash: string; password_created: string }> {
  return {
    password_hash: await hashPassword(password, ctx.config.passwordHashCost),
    password_created: toTimestamp(ctx.clock.nowMs()),
  };
}

/** Sets a password for a user of the actor's account (404 for another account's), with a user_update event. */
export async function setAccountUserPassword(ctx: Context, actor: Actor, username: string, password: string): Promise<void> {
  const values = await newPassword(ctx, password);
  await inTransaction(ctx.db, async (trx) => {
    const user = await existingUser(trx, actor.accountId, username);
    await updateUserRow(trx, actor.accountId, user.id, values);
    await recordEvent(trx, ctx, actor, { action: 'user_update', entity: entityOf(user) });
  });
}

/**
 * The user a username and password sign in as, or null. The check takes as long for an unknown
 * username, or a user with no password, as for a wrong password (see verifyPassword).
 */
export async function userWithPassword(ctx: Context, username: string, password: string): Promise<UserRow | null> {
  const row = await findUserByNameInAnyAccount(ctx.db, username);
  const ok = await verifyPassword(password, row?.password_hash, ctx.config.passwordHashCost);
  return ok && row ? row : null;
}

/** A user signed in through the sign-in page with its password: the user's last_login. */
export async function recordSignIn(ctx: Context, accountId: number, userId: number): Promise<void> {
  await setLastLogin(ctx.db, accountId, userId, toTimestamp(ctx.clock.nowMs()));
}

export async function getUsers(ctx: Context, accountId: number, request: PageRequest) {
  const page = await listUsers(ctx.db, accountId, request);
  const labels = await sshKeyLabelsOf(
    ctx.db,
    accountId,
    page.data.map((u) => u.id),
  );
  return mapPage(page, (row) => userRowToUser(row, labels.get(row.id) ?? []));
}

/** A user of the account's profile public keys (404 for no such user). */
export async function getUserPublicKeys(ctx: Context, accountId: number, username: string): Promise<string[]> {
  const row = await findUserByName(ctx.db, accountId, username);
  if (!row) throw fail.notFound();
  return publicKeysOf(ctx.db, accountId, row.id);
}

export async function getUser(ctx: Context, accountId: number, username: string): Promise<User> {
  return toUser(ctx.db, await existingUser(ctx.db, accountId, username));
}

/** Adds a user to the actor's account within the caller's transaction, with its event. */
export async function addUser(db: Kysely<Database>, ctx: Context, actor: Actor, body: CreateUser): Promise<UserRow> {
  if (await usernameTaken(db, body.username)) throw fail.badRequest('Username taken', 'username');
  const row = await createUserRow(db, ctx, {
    accountId: actor.accountId,
    username: body.username,
    email: body.email,
    restricted: body.restricted ?? false,
  });
  await recordEvent(db, ctx, actor, { action: 'user_create', entity: entityOf(row) });
  return row;
}

export async function createUser(ctx: Context, actor: Actor, body: CreateUser): Promise<User> {
  return inTransaction(ctx.db, async (trx) => toUser(trx, await addUser(trx, ctx, actor, body)));
}

/**
 * Changing whether a user is restricted starts it over with no grants. A user may not change its own
 * restricted status: only unrestricted users manage users, so doing it would lock itself out.
 */
export async function updateUser(ctx: Context, actor: Actor, username: string, body: UpdateUser): Promise<User> {
  const updated = await inTransaction(ctx.db, async (trx) => {
    const user = await existingUser(trx, actor.accountId, username);
    if (body.username === undefined && body.email === undefined && body.restricted === undefined) return toUser(trx, user);
    const values: Updateable<UserTable> = {};
    if (body.username !== undefined && body.username !== user.username) {
      if (await usernameTaken(trx, body.username, user.id)) throw fail.badRequest('Username taken', 'username');
      values.username = body.username;
    }
    if (body.email !== undefined) values.email = body.email;
    const restricted = body.restricted === undefined ? undefined : body.restricted ? 1 : 0;
    if (restricted !== undefined && restricted !== user.restricted) {
      if (user.id === actor.userId) throw fail.badRequest('You cannot change whether your own user is restricted', 'restricted');
      values.restricted = restricted;
      values.global_grants = JSON.stringify(noGlobalGrants());
      await deleteEntityGrantsOf(trx, actor.accountId, user.id);
    }
    const row = Object.keys(values).length ? await updateUserRow(trx, actor.accountId, user.id, values) : user;
    await recordEvent(trx, ctx, actor, { action: 'user_update', entity: entityOf(row) });
    return toUser(trx, row);
  });
  // The user's tokens now stand for a principal with another name or restriction.
  await forgetCachedTokens(ctx);
  return updated;
}

/**
 * Removes a user with its tokens, SSH keys and grants. A user may not delete itself: only unrestricted
 * users delete users, so refusing that keeps at least one unrestricted user in every account.
 */
export async function deleteUser(ctx: Context, actor: Actor, username: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const user = await existingUser(trx, actor.accountId, username);
    if (user.id === actor.userId) throw fail.badRequest('You cannot delete your own user', 'username');
    await deleteUserRow(trx, actor.accountId, user.id);
    await recordEvent(trx, ctx, actor, { action: 'user_delete', entity: entityOf(user) });
  });
  await forgetCachedTokens(ctx);
}
