import type { Context } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { randomHex } from '../../random.ts';
import { hashPassword } from '../../secrets/password-hash.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { ensureConsoleClient } from '../oauth/console-client.ts';
import { findTokenByHash } from '../profile/token.repository.ts';
import { hashToken, issueToken, refreshTokenPrefix } from '../profile/token.service.ts';
import { findUserByNameInAnyAccount, updateUser } from './user.repository.ts';
import { createAccount, createUserRow } from './user.service.ts';

export const BOOTSTRAP_USERNAME = 'admin';

export type BootstrapResult =
  | { kind: 'existing' }
  /** `password` when one was made up to show once (no CUMULO_BOOTSTRAP_TOKEN nor CUMULO_BOOTSTRAP_PASSWORD). */
  | { kind: 'created'; token: string; username: string; password?: string };

/**
 * What a fresh installation has before anyone calls it: the web console's OAuth client, and a first
 * user who can call the API and sign in (ensureFirstUser). CUMULO_BOOTSTRAP_PASSWORD, when set, is
 * made `admin`'s password at every start.
 */
export async function ensureBootstrap(ctx: Context, fixedToken?: string): Promise<BootstrapResult> {
  await ensureConsoleClient(ctx);
  const fixedPassword = ctx.config.bootstrapPassword;
  const password = fixedPassword ?? (fixedToken ? undefined : randomHex(ctx.random, 12));
  const result = await ensureFirstUser(ctx, fixedToken, password);
  if (result.kind === 'created' && password !== undefined && fixedPassword === undefined) return { ...result, password };
  return result;
}

/**
 * With a fixed token: ensures an account, an unrestricted `admin` and that exact token with scope
 * `*`. Without one: on an empty database only, creates them with a random token to show once. The
 * password given becomes `admin`'s in the same transaction: when the user is made, and when the
 * password is fixed (CUMULO_BOOTSTRAP_PASSWORD). It is hashed only then, once (a start of an existing
 * installation hashes nothing).
 */
function ensureFirstUser(ctx: Context, fixedToken: string | undefined, password: string | undefined): Promise<BootstrapResult> {
  const fixedPassword = ctx.config.bootstrapPassword !== undefined;
  let hash: Promise<string> | undefined;
  const passwordHash = () => {
    hash ??= hashPassword(password ?? '', ctx.config.passwordHashCost);
    return hash;
  };
  const passwordSet = async () => ({ password_hash: await passwordHash(), password_created: toTimestamp(ctx.clock.nowMs()) });
  return inTransaction(ctx.db, async (trx) => {
    const existing = await findUserByNameInAnyAccount(trx, BOOTSTRAP_USERNAME);
    if (existing && fixedPassword) {
      await updateUser(trx, existing.account_id, existing.id, await passwordSet());
    }
    if (fixedToken && (await findTokenByHash(trx, hashToken(fixedToken)))) {
      await refreshTokenPrefix(trx, fixedToken);
      return { kind: 'existing' };
    }
    if (!fixedToken) {
      const any = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
      if (any) return { kind: 'existing' };
    }
    let user = existing;
    if (!user) {
      const account = await createAccount(trx, ctx, 'admin@example.com');
      user = await createUserRow(trx, ctx, {
        accountId: account.id,
        username: BOOTSTRAP_USERNAME,
        email: 'admin@example.com',
        restricted: false,
      });
    }
    if (password !== undefined) await updateUser(trx, user.account_id, user.id, await passwordSet());
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
