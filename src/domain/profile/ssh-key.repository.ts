import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import type { SshKeyTable } from './ssh-key.table.ts';

export type SshKeyRow = Selectable<SshKeyTable>;

/** The user's own keys; `label` is filterable, as on every collection of labelled objects (clients look keys up by it). */
const FILTER: FilterSpec = {
  fields: { label: { column: 'ssh_keys.label', type: 'string' } },
  defaultOrder: { column: 'ssh_keys.id', direction: 'asc' },
  tiebreak: 'ssh_keys.id',
};

export interface KeyOwner {
  accountId: number;
  userId: number;
}

function ownKeys(db: Kysely<Database>, owner: KeyOwner) {
  return db
    .selectFrom('ssh_keys')
    .selectAll('ssh_keys')
    .where('ssh_keys.account_id', '=', owner.accountId)
    .where('ssh_keys.user_id', '=', owner.userId);
}

export function listSshKeys(db: Kysely<Database>, owner: KeyOwner, request: PageRequest) {
  return paginate(ownKeys(db, owner), request, FILTER);
}

export function findSshKey(db: Kysely<Database>, owner: KeyOwner, id: number): Promise<SshKeyRow | undefined> {
  return ownKeys(db, owner).where('ssh_keys.id', '=', id).executeTakeFirst();
}

export function insertSshKey(db: Kysely<Database>, values: Insertable<SshKeyTable>): Promise<SshKeyRow> {
  return db.insertInto('ssh_keys').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateSshKeyLabel(db: Kysely<Database>, owner: KeyOwner, id: number, label: string): Promise<SshKeyRow> {
  return db
    .updateTable('ssh_keys')
    .set({ label })
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteSshKey(db: Kysely<Database>, owner: KeyOwner, id: number): Promise<void> {
  await db
    .deleteFrom('ssh_keys')
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .where('id', '=', id)
    .execute();
}

/** Labels of the keys of some users of the account, in the order the keys were added. */
export async function findSshKeyLabels(
  db: Kysely<Database>,
  accountId: number,
  userIds: readonly number[],
): Promise<{ user_id: number; label: string }[]> {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('ssh_keys')
    .select(['user_id', 'label'])
    .where('account_id', '=', accountId)
    .where('user_id', 'in', [...userIds])
    .orderBy('id')
    .execute();
}

/** The public keys of a user's profile, in the order they were added. */
export async function findPublicKeys(db: Kysely<Database>, owner: KeyOwner): Promise<string[]> {
  const rows = await ownKeys(db, owner).select('ssh_keys.ssh_key').orderBy('ssh_keys.id').execute();
  return rows.map((r) => r.ssh_key);
}
