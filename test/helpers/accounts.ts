import { openAccount } from '../../src/domain/account/account.service.ts';
import { BOOTSTRAP_USERNAME } from '../../src/domain/account/bootstrap.ts';
import { operatorIn } from '../../src/domain/account/principal.ts';
import { addUser } from '../../src/domain/account/user.service.ts';
import { createToken } from '../../src/domain/profile/token.service.ts';
import { normalizeTimestamp } from '../../src/time/timestamp.ts';
import { ADMIN_TOKEN, type TestApp } from './app.ts';

/**
 * Test accounts, users and tokens, all made through the domain services the API and the CLI use
 * (`cumulo account create`, `cumulo user create`, `cumulo token create`).
 */

/** A user able to call the API: its ids, name and a token. */
export interface Caller {
  accountId: number;
  userId: number;
  username: string;
  token: string;
}

export interface TokenOptions {
  scopes?: string;
  label?: string;
  /** When already past, the token is made as at a second before it, so it is expired from the start. */
  expiry?: string;
}

let counter = 0;

export function uniqueName(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${process.pid}n${counter}`;
}

/** The app's context, with the clock read a second before `expiry` when that is already past. */
function contextBefore(app: TestApp, expiry: string | undefined) {
  const { ctx } = app.runtime;
  const expiryMs = expiry === undefined ? Number.NaN : Date.parse(`${normalizeTimestamp(expiry)}Z`);
  if (!(expiryMs <= ctx.clock.nowMs())) return ctx;
  return { ...ctx, clock: { nowMs: () => expiryMs - 1000, advance: () => {} } };
}

/** A token for an existing user (scope * unless told otherwise). */
export async function tokenFor(
  app: TestApp,
  user: { accountId: number; userId: number },
  options: TokenOptions = {},
): Promise<string> {
  const ctx = contextBefore(app, options.expiry);
  const token = await createToken(ctx, operatorIn(user.accountId), user, '*', { label: 'test', ...options });
  return token.token;
}

/** A new account with its first, unrestricted user and a token. */
export async function newAccount(app: TestApp, options: TokenOptions = {}): Promise<Caller> {
  const { ctx } = app.runtime;
  const username = uniqueName('owner');
  const { accountId } = await openAccount(ctx, { email: `${username}@example.com`, username });
  const user = await ctx.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
  const caller = { accountId, userId: user.id, username };
  return { ...caller, token: await tokenFor(app, caller, options) };
}

/** Another user in an account (unrestricted unless told otherwise), with a token. */
export async function newUser(
  app: TestApp,
  accountId: number,
  options: TokenOptions & { restricted?: boolean } = {},
): Promise<Caller> {
  const { ctx } = app.runtime;
  const { restricted = false, ...tokenOptions } = options;
  const username = uniqueName();
  const row = await ctx.db
    .transaction()
    .execute((trx) => addUser(trx, ctx, operatorIn(accountId), { username, email: `${username}@example.com`, restricted }));
  const caller = { accountId, userId: row.id, username };
  return { ...caller, token: await tokenFor(app, caller, tokenOptions) };
}

/** The bootstrap user `admin` (unrestricted, scope *) whose token the test app sends by default. */
export async function admin(app: TestApp): Promise<Caller> {
  const row = await app.runtime.ctx.db
    .selectFrom('users')
    .select(['id', 'account_id'])
    .where('username', '=', BOOTSTRAP_USERNAME)
    .executeTakeFirstOrThrow();
  return { accountId: row.account_id, userId: row.id, username: BOOTSTRAP_USERNAME, token: ADMIN_TOKEN };
}
