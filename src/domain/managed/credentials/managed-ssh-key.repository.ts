import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { ManagedSshKeyTable } from './credential.table.ts';

export type ManagedSshKeyRow = Selectable<ManagedSshKeyTable>;

export function findManagedSshKey(db: Kysely<Database>, accountId: number): Promise<ManagedSshKeyRow | undefined> {
  return db.selectFrom('managed_ssh_keys').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/**
 * Stores the account's key pair unless it has one: of requests racing to make the first, one insert
 * takes and the others do nothing (they wait for it on PostgreSQL), and all then read the one stored.
 */
export async function insertManagedSshKeyIfAbsent(db: Kysely<Database>, values: Insertable<ManagedSshKeyTable>): Promise<void> {
  await db
    .insertInto('managed_ssh_keys')
    .values(values)
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}
