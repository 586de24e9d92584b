import { openAccount } from '../../src/domain/account/account.service.ts';
import { operatorIn } from '../../src/domain/account/principal.ts';
import { addUser } from '../../src/domain/account/user.service.ts';
import { createToken } from '../../src/domain/profile/token.service.ts';
import { ADMIN_TOKEN, type TestApp } from '../helpers/app.ts';

/** A user able to call the API: its ids, name and a token. */
export interface Caller {
  accountId: number;
  userId: number;
  username: string;
  token: string;
}

let counter = 0;

export function uniqueName(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${process.pid}n${counter}`;
}

/** A token for an existing user, made by the same service as `cumulo token create`. */
export async function tokenFor(
  app: TestApp,
  user: { accountId: number; userId: number },
  options: { scopes?: string; expiry?: string } = {},
): Promise<string> {
  const { ctx } = app.runtime;
  const token = await createToken(ctx, operatorIn(user.accountId), user, '*', { label: 'test', ...options });
  return token.token;
}

/** A new account with its first, unrestricted user. */
export async function newAccount(app: TestApp, options: { scopes?: string } = {}): Promise<Caller> {
  const { ctx } = app.runtime;
  const username = uniqueName('owner');
  const { accountId } = await openAccount(ctx, { email: `${username}@example.com`, username });
  const user = await ctx.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow();
  const caller = { accountId, userId: user.id, username };
  return { ...caller, token: await tokenFor(app, caller, options) };
}

/** Another user in an account, with a token. */
export async function newUser(
  app: TestApp,
  accountId: number,
  options: { restricted?: boolean; scopes?: string } = {},
): Promise<Caller> {
  const { ctx } = app.runtime;
  const username = uniqueName();
  const row = await ctx.db.transaction().execute((trx) =>
    addUser(trx, ctx, operatorIn(accountId), {
      username,
      email: `${username}@example.com`,
      restricted: options.restricted ?? false,
    }),
  );
  const caller = { accountId, userId: row.id, username };
  return { ...caller, token: await tokenFor(app, caller, options.scopes ? { scopes: options.scopes } : {}) };
}

/** The bootstrap user `admin` (unrestricted, scope *) whose token the test app sends by default. */
export async function admin(app: TestApp): Promise<Caller> {
  const row = await app.runtime.ctx.db
    .selectFrom('users')
    .select(['id', 'account_id'])
    .where('username', '=', 'admin')
    .executeTakeFirstOrThrow();
  return { accountId: row.account_id, userId: row.id, username: 'admin', token: ADMIN_TOKEN };
}

/** Events of an account with the given action, oldest first, straight from the table. */
export function eventsOf(app: TestApp, accountId: number, action: string) {
  return app.runtime.ctx.db
    .selectFrom('events')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('action', '=', action)
    .orderBy('id')
    .execute();
}

/** Real OpenSSH public keys (generated with ssh-keygen). */
export const KEYS = {
  ed25519: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPN0K/iavLgIDTQrbgZpLOwD2XuGnYQMzGIUfibihwo/ me@laptop',
  rsa: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQCmhQa1w+PFhoUJo6ADMXrf7hrvkJdzJnfG+60uIz+OPIvgfs/4dyrkfhoqzuy8fW7STYAN0vqEGzRG050dvpMpjy1r8LruuUCdCfulkdxh3EWiUrfIbTTx1BytzqT6JKfY/b54U15KE0GWerbGFIIEZ3s1212/LvLOOI+EWE0kcQ== rsa',
  ecdsa:
    'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBD1ElBwbeTrfvH4Oje5rQOVTfDfSbWbmr14MdpzVdAFPbRwAtVncAZwPZH8j2yMMhdaH01tqLm2SDARzsJgJfOg= ec',
} as const;
