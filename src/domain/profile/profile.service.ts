import type { Context } from '../../context.ts';
import { fail } from '../../errors.ts';
import type { Principal } from '../account/principal.ts';
import { findUserById, type UserRow } from '../account/user.repository.ts';
import type { Profile } from './profile.schema.ts';

export function userRowToProfile(row: UserRow): Profile {
  const keys = JSON.parse(row.authorized_keys) as string[];
  return {
    uid: row.id,
    username: row.username,
    email: row.email,
    timezone: row.timezone,
    email_notifications: row.email_notifications === 1,
    referrals: { code: '', url: '', total: 0, completed: 0, pending: 0, credit: 0 },
    ip_whitelist_enabled: row.ip_whitelist_enabled === 1,
    lish_auth_method: row.lish_auth_method as Profile['lish_auth_method'],
    authorized_keys: keys.length ? keys : null,
    two_factor_auth: false,
    restricted: row.restricted === 1,
    authentication_type: 'password',
  };
}

export async function getProfile(ctx: Context, principal: Principal): Promise<Profile> {
  const row = await findUserById(ctx.db, principal.accountId, principal.userId);
  if (!row) throw fail.unauthorized();
  return userRowToProfile(row);
}
