import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { BackupTable } from './backup.table.ts';

export type BackupRow = Selectable<BackupTable>;

function backupsOf(db: Kysely<Database>, accountId: number) {
  return db.selectFrom('backups').selectAll().where('account_id', '=', accountId);
}

/** The node's backups, oldest first. */
export function findBackupsOfNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<BackupRow[]> {
  return backupsOf(db, accountId).where('node_id', '=', nodeId).orderBy('created').orderBy('id').execute();
}

/** A backup of the account by id alone (the node it belongs to is checked by the caller). */
export function findBackup(db: Kysely<Database>, accountId: number, id: number): Promise<BackupRow | undefined> {
  return backupsOf(db, accountId).where('id', '=', id).executeTakeFirst();
}

export function insertBackup(db: Kysely<Database>, values: Insertable<BackupTable>): Promise<BackupRow> {
  return db.insertInto('backups').values(values).returningAll().executeTakeFirstOrThrow();
}

export function updateBackupRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<BackupTable>,
): Promise<BackupRow | undefined> {
  return db
    .updateTable('backups')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteBackupRows(db: Kysely<Database>, accountId: number, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('backups')
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function deleteBackupsOfNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<void> {
  await db.deleteFrom('backups').where('account_id', '=', accountId).where('node_id', '=', nodeId).execute();
}
