import { createHash } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { Context } from '../../context.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type ErrorItem, fail } from '../../errors.ts';
import { actorOf, type Principal } from '../account/principal.ts';
import { findUserById, type UserRow, updateUser } from '../account/user.repository.ts';
import type { UserTable } from '../account/user.table.ts';
import { recordEvent } from '../events/event.service.ts';
import type { Profile, UpdateProfile } from './profile.schema.ts';
import { normalizeSshKey, sshKeyProblem } from './ssh-public-key.ts';

/** A user's referral code: stable for the user, and saying nothing about anything else. */
function referralCode(row: UserRow): string {
  return createHash('sha256').update(`referral ${row.account_id} ${row.id} ${row.created}`).digest('hex').slice(0, 40);
}

/** `baseUrl` is where clients reach the server (CUMULO_PUBLIC_URL or the request's host); the referral URL is built on it. */
export function userRowToProfile(row: UserRow, baseUrl: string): Profile {
  const keys = JSON.parse(row.authorized_keys) as string[];
  const code = referralCode(row);
  return {
    uid: row.id,
    username: row.username,
    email: row.email,
    timezone: row.timezone,
    email_notifications: row.email_notifications === 1,
    referrals: { code, url: `${baseUrl.replace(/\/+$/, '')}/referrals/${code}`, total: 0, completed: 0, pending: 0, credit: 0 },
    ip_whitelist_enabled: row.ip_whitelist_enabled === 1,
    lish_auth_method: row.lish_auth_method as Profile['lish_auth_method'],
    authorized_keys: keys.length ? keys : null,
    two_factor_auth: false,
    restricted: row.restricted === 1,
    authentication_type: 'password',
    verified_phone_number: null,
    user_type: 'default',
  };
}

export async function getProfile(ctx: Context, principal: Principal, baseUrl: string): Promise<Profile> {
  const row = await findUserById(ctx.db, principal.accountId, principal.userId);
  if (!row) throw fail.unauthorized();
  return userRowToProfile(row, baseUrl);
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** What a profile update may not do, one item per field. */
function problemsOf(changes: UpdateProfile, current: UserRow): ErrorItem[] {
  const problems: ErrorItem[] = [];
  if (changes.timezone !== undefined && !isTimeZone(changes.timezone)) {
    problems.push({ field: 'timezone', reason: 'Must be a time zone name such as US/Eastern or Europe/Berlin' });
  }
  // The IP whitelist is deprecated: it can be turned off but never on again.
  if (changes.ip_whitelist_enabled === true && current.ip_whitelist_enabled === 0) {
    problems.push({ field: 'ip_whitelist_enabled', reason: 'The IP whitelist is deprecated and cannot be enabled' });
  }
  (changes.authorized_keys ?? []).forEach((key, i) => {
    const problem = sshKeyProblem(key);
    if (problem) problems.push({ field: `authorized_keys[${i}]`, reason: problem });
  });
  return problems;
}

export async function updateProfile(
  ctx: Context,
  principal: Principal,
  changes: UpdateProfile,
  baseUrl: string,
): Promise<Profile> {
  return inTransaction(ctx.db, async (trx) => {
    await lockRows(trx, 'users', 'id', [principal.userId]);
    const current = await findUserById(trx, principal.accountId, principal.userId);
    if (!current) throw fail.unauthorized();
    const problems = problemsOf(changes, current);
    if (problems.length) throw fail.invalid(problems);
    const values: Updateable<UserTable> = {};
    if (changes.email !== undefined) values.email = changes.email;
    if (changes.timezone !== undefined) values.timezone = changes.timezone;
    if (changes.email_notifications !== undefined) values.email_notifications = changes.email_notifications ? 1 : 0;
    if (changes.ip_whitelist_enabled !== undefined) values.ip_whitelist_enabled = changes.ip_whitelist_enabled ? 1 : 0;
    if (changes.lish_auth_method !== undefined) values.lish_auth_method = changes.lish_auth_method;
    if (changes.authorized_keys !== undefined) {
      values.authorized_keys = JSON.stringify((changes.authorized_keys ?? []).map(normalizeSshKey));
    }
    if (Object.keys(values).length === 0) return userRowToProfile(current, baseUrl);
    const row = await updateUser(trx, principal.accountId, principal.userId, values);
    await recordEvent(trx, ctx, actorOf(principal), {
      action: 'profile_update',
      entity: { id: row.id, type: 'profile', label: row.username, url: '/v4/profile' },
    });
    return userRowToProfile(row, baseUrl);
  });
}
