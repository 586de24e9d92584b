import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { randomUuid } from '../../random.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { type AccountRow, insertAccount } from './account.repository.ts';
import { type GlobalGrants, noGlobalGrants, parseGlobalGrants } from './grants.ts';
import type { Principal } from './principal.ts';
import { findUserById, insertUser, type UserRow } from './user.repository.ts';

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
