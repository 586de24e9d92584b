import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { FilterSpec } from '../../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../../db/paginate.ts';
import type { ManagedCredentialTable } from './credential.table.ts';

export type CredentialRow = Selectable<ManagedCredentialTable>;

/** Only `label` is filterable, as on every collection of labelled objects; lists come in id order. */
const FILTER: FilterSpec = {
  fields: { label: { column: 'managed_credentials.label', type: 'string' } },
  defaultOrder: { column: 'managed_credentials.id', direction: 'asc' },
  tiebreak: 'managed_credentials.id',
};

export function listCredentials(db: Kysely<Database>, accountId: number, request: PageRequest): Promise<Page<CredentialRow>> {
  const query = db.selectFrom('managed_credentials').selectAll().where('account_id', '=', accountId);
  return paginate(query, request, FILTER);
}

export function findCredential(db: Kysely<Database>, accountId: number, id: number): Promise<CredentialRow | undefined> {
  return db
    .selectFrom('managed_credentials')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Any account's credential: for the operator, who names credentials by id alone. */
export function findCredentialAnywhere(db: Kysely<Database>, id: number): Promise<CredentialRow | undefined> {
  return db.selectFrom('managed_credentials').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Which of `ids` are credentials of the account. */
export async function findCredentialIds(db: Kysely<Database>, accountId: number, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('managed_credentials')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return rows.map((r) => r.id);
}

export async function credentialLabelTaken(
  db: Kysely<Database>,
  accountId: number,
  label: string,
  exceptId?: number,
): Promise<boolean> {
  let q = db.selectFrom('managed_credentials').select('id').where('account_id', '=', accountId).where('label', '=', label);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export function insertCredential(db: Kysely<Database>, values: Insertable<ManagedCredentialTable>): Promise<CredentialRow> {
  return db.insertInto('managed_credentials').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Changes a credential; undefined when it is not there (another request deleted it). */
export function updateCredentialRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<ManagedCredentialTable>,
): Promise<CredentialRow | undefined> {
  return db
    .updateTable('managed_credentials')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a credential; whether there was one to delete. */
export async function deleteCredentialRow(db: Kysely<Database>, accountId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('managed_credentials')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
