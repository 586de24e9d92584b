import type { Insertable } from 'kysely';
import { PRIVATE_IMAGE_SORT } from '../../src/domain/images/image.repository.ts';
import type { ImageTable } from '../../src/domain/images/image.table.ts';
import type { Caller } from '../helpers/accounts.ts';
import type { TestApp } from '../helpers/app.ts';

export function xFilter(filter: unknown): { headers: Record<string, string> } {
  return { headers: { 'x-filter': JSON.stringify(filter) } };
}

let counter = 0;

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
