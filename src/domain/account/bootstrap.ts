import type { Context } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ensureConsoleClient } from '../oauth/console-client.ts';
import { findTokenByHash } from '../profile/token.repository.ts';
import { hashToken, issueToken, refreshTokenPrefix } from '../profile/token.service.ts';
import { createAccount, createUserRow } from './user.service.ts';

export const BOOTSTRAP_USERNAME = 'admin';

export type BootstrapResult = { kind: 'existing' } | { kind: 'created'; token: string; username: string };

/**
 * What a fresh installation has before anyone calls it: the web console's OAuth client, and a first
 * user who can call the API (ensureFirstUser).
 */
export async function ensureBootstrap(ctx: Context, fixedToken?: string): Promise<BootstrapResult> {
  await ensureConsoleClient(ctx);
  return ensureFirstUser(ctx, fixedToken);
}

/**
 * With a fixed token: ensures an account, an unrestricted `admin` and that exact token with scope
 * `*`. Without one: on an empty database only, creates them with a random token to show once.
 */
function ensureFirstUser(ctx: Context, fixedToken?: string): Promise<BootstrapResult> {
  return inTransaction(ctx.db, async (trx) => {
    if (fixedToken && (await findTokenByHash(trx, hashToken(fixedToken)))) {
      await refreshTokenPrefix(trx, fixedToken);
      return { kind: 'existing' };
    }
    if (!fixedToken) {
      const any = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
      if (any) return { kind: 'existing' };
    }
    let user = await trx.selectFrom('users').selectAll().where('username', '=', BOOTSTRAP_USERNAME).executeTakeFirst();
    if (!user) {
      const account = await createAccount(trx, ctx, 'admin@example.com');
      user = await createUserRow(trx, ctx, {
        accountId: account.id,
        username: BOOTSTRAP_USERNAME,
        email: 'admin@example.com',
        restricted: false,
      });
    }
    const { value } = await issueToken(trx, ctx, {
      accountId: user.account_id,
      userId: user.id,
      label: 'bootstrap',
      scopes: '*',
      expiry: null,
      ...(fixedToken ? { value: fixedToken } : {}),
    });
    return { kind: 'created', token: value, username: user.username };
  });
}
