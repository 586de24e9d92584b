import type { Insertable } from 'kysely';
import { PRIVATE_IMAGE_SORT } from '../../src/domain/images/image.repository.ts';
import type { ImageTable } from '../../src/domain/images/image.table.ts';
import { hashToken } from '../../src/domain/profile/token.service.ts';
import type { TestApp } from '../helpers/app.ts';

export function xFilter(filter: unknown): { headers: Record<string, string> } {
  return { headers: { 'x-filter': JSON.stringify(filter) } };
}

export interface Caller {
  accountId: number;
  userId: number;
  token: string;
}

let counter = 0;
const NOW = '2025-01-01T00:00:00';

/**
 * A user (of a new account, or one more in `accountId`) with a token, written straight into the
 * tables so these tests lean on nothing but the schema and the token hash.
 */
export async function makeCaller(
  app: TestApp,
  options: { accountId?: number; restricted?: boolean; scopes?: string } = {},
): Promise<Caller> {
  const db = app.runtime.ctx.db;
  const n = ++counter;
  const accountId =
    options.accountId ??
    (
      await db
        .insertInto('accounts')
        .values({
          euuid: `CATALOG-${process.pid}-${n}`,
          email: `catalog${n}@example.com`,
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
          active_since: NOW,
          created: NOW,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const username = `catalog${process.pid}u${n}`;
  const user = await db
    .insertInto('users')
    .values({
      account_id: accountId,
      username,
      email: `${username}@example.com`,
      restricted: options.restricted ? 1 : 0,
      global_grants: '{}',
      timezone: 'UTC',
      email_notifications: 0,
      ip_whitelist_enabled: 0,
      lish_auth_method: 'keys_only',
      authorized_keys: '[]',
      created: NOW,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const token = `catalog-test-token-${process.pid}-${n}-0123456789abcdef`;
  await db
    .insertInto('tokens')
    .values({
      account_id: accountId,
      user_id: user.id,
      label: 'catalog test',
      scopes: options.scopes ?? '*',
      token_hash: hashToken(token),
      token_prefix: token.slice(0, 16),
      created: NOW,
      expiry: null,
    })
    .execute();
  return { accountId, userId: user.id, token };
}

/** The account the bootstrap token (the test app's default caller) belongs to. */
export async function adminAccount(app: TestApp): Promise<number> {
  const row = await app.runtime.ctx.db
    .selectFrom('users')
    .select('account_id')
    .where('username', '=', 'admin')
    .executeTakeFirstOrThrow();
  return row.account_id;
}

/** Writes a private image row straight into the table, as image create would leave it. */
export async function insertPrivateImage(
  app: TestApp,
  accountId: number,
  values: Partial<Insertable<ImageTable>> = {},
): Promise<{ id: string; num: number }> {
  const db = app.runtime.ctx.db;
  const row = await db
    .insertInto('images')
    .values({
      id: `pending/${++counter}`,
      account_id: accountId,
      label: `golden-${counter}`,
      description: 'captured in a test',
      created: '2025-01-02T03:04:05',
      updated: '2025-01-02T03:04:05',
      created_by: 'tester',
      deprecated: 0,
      is_public: 0,
      size: 2048,
      type: 'manual',
      expiry: null,
      eol: null,
      vendor: null,
      status: 'available',
      sort: PRIVATE_IMAGE_SORT,
      ...values,
    })
    .returning('num')
    .executeTakeFirstOrThrow();
  const id = `private/${row.num}`;
  await db.updateTable('images').set({ id }).where('num', '=', row.num).execute();
  return { id, num: row.num };
}

/** Gives a restricted user a grant on one image. */
export async function grantImage(app: TestApp, caller: Caller, num: number): Promise<void> {
  await app.runtime.ctx.db
    .insertInto('entity_grants')
    .values({
      account_id: caller.accountId,
      user_id: caller.userId,
      entity_type: 'image',
      entity_id: num,
      permissions: 'read_only',
    })
    .execute();
}
