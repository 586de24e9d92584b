import type { Context } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { recordEvent } from '../events/event.service.ts';
import { type AccountRow, findAccountById, updateAccount as updateAccountRow } from './account.repository.ts';
import type { Account, UpdateAccount } from './account.schema.ts';
import { type Actor, operatorIn } from './principal.ts';
import { addUser, createAccount } from './user.service.ts';

/** What every account can use; the same for all accounts of this service. */
const CAPABILITIES = ['Nodes', 'Cloud Firewall', 'Machine Images', 'Vlans'];

export function accountRowToAccount(row: AccountRow): Account {
  return {
    active_promotions: [],
    active_since: row.active_since,
    address_1: row.address_1,
    address_2: row.address_2,
    balance: row.balance,
    balance_uninvoiced: row.balance_uninvoiced,
    billing_source: 'node',
    capabilities: [...CAPABILITIES],
    city: row.city,
    credit_card: { last_four: '', expiry: '' },
    company: row.company,
    country: row.country,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    phone: row.phone,
    state: row.state,
    tax_id: row.tax_id,
    euuid: row.euuid,
    zip: row.zip,
  };
}

export async function getAccount(ctx: Context, accountId: number): Promise<Account> {
  const row = await findAccountById(ctx.db, accountId);
  if (!row) throw fail.notFound();
  return accountRowToAccount(row);
}

/** Whether an account of this id exists: the operator names accounts by id. */
export async function accountExists(db: Context['db'], accountId: number): Promise<boolean> {
  return (await findAccountById(db, accountId)) !== undefined;
}

/** The operator's way to start an account: the account and its first, unrestricted user, in one transaction. */
export async function openAccount(
  ctx: Context,
  spec: { email: string; username: string },
): Promise<{ accountId: number; username: string }> {
  return inTransaction(ctx.db, async (trx) => {
    const account = await createAccount(trx, ctx, spec.email);
    const user = await addUser(trx, ctx, operatorIn(account.id), {
      username: spec.username,
      email: spec.email,
      restricted: false,
    });
    return { accountId: account.id, username: user.username };
  });
}

export async function updateAccount(ctx: Context, actor: Actor, changes: UpdateAccount): Promise<Account> {
  const values = {
    ...pick(changes),
    ...(changes.country !== undefined ? { country: changes.country.toUpperCase() } : {}),
  };
  return inTransaction(ctx.db, async (trx) => {
    const current = await findAccountById(trx, actor.accountId);
    if (!current) throw fail.notFound();
    const row = Object.keys(values).length ? await updateAccountRow(trx, actor.accountId, values) : current;
    await recordEvent(trx, ctx, actor, {
      action: 'account_update',
      entity: { id: row.id, type: 'account', label: row.company || row.email, url: '/v4/account' },
    });
    return accountRowToAccount(row);
  });
}

const EDITABLE = [
  'address_1',
  'address_2',
  'city',
  'company',
  'country',
  'email',
  'first_name',
  'last_name',
  'phone',
  'state',
  'tax_id',
  'zip',
] as const satisfies readonly (keyof UpdateAccount)[];

/** The editable fields a request sent; anything else in the body (read-only fields) is ignored. */
function pick(changes: UpdateAccount): Partial<Record<(typeof EDITABLE)[number], string>> {
  const out: Partial<Record<(typeof EDITABLE)[number], string>> = {};
  for (const key of EDITABLE) {
    const value = changes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
