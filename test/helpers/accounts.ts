import { createAccount, createUserRow } from '../../src/domain/account/user.service.ts';
import { issueToken } from '../../src/domain/profile/token.service.ts';
import type { TestApp } from './app.ts';

export interface TestUser {
  accountId: number;
  userId: number;
  username: string;
  token: string;
}

let counter = 0;

/** A new account with one user and a token, made through the domain services. */
export async function createTestAccount(app: TestApp, options: { scopes?: string } = {}): Promise<TestUser> {
  const { ctx } = app.runtime;
  const account = await createAccount(ctx.db, ctx, `owner${++counter}@example.com`);
  return addTestUser(app, account.id, { restricted: false, ...options });
}

/** Another user in an existing account, with a token. */
export async function addTestUser(
  app: TestApp,
  accountId: number,
  options: { restricted: boolean; scopes?: string; expiry?: string | null },
): Promise<TestUser> {
  const { ctx } = app.runtime;
  const username = `user${process.pid}x${++counter}`;
  const user = await createUserRow(ctx.db, ctx, {
    accountId,
    username,
    email: `${username}@example.com`,
    restricted: options.restricted,
  });
  const { value } = await issueToken(ctx.db, ctx, {
    accountId,
    userId: user.id,
    label: 'test',
    scopes: options.scopes ?? '*',
    expiry: options.expiry ?? null,
  });
  return { accountId, userId: user.id, username, token: value };
}

/** The bootstrap account's id (the account ADMIN_TOKEN belongs to). */
export async function adminAccountId(app: TestApp): Promise<number> {
  const row = await app.runtime.ctx.db
    .selectFrom('users')
    .select('account_id')
    .where('username', '=', 'admin')
    .executeTakeFirstOrThrow();
  return row.account_id;
}
