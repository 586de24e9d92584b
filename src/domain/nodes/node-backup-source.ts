import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import type { NodeTypeDataT } from '../catalog/catalog.ts';
import type { Interface } from './config.schema.ts';
import type { NodeRow } from './node.repository.ts';

/**
 * SEAM for the backups group: creating a node from `backup_id` (another node's backup in the
 * account). To complete it, `resolveBackupSource` checks, before anything is written, that the backup
 * exists in the scope (the caller needs read_write on the backed-up node), is `successful`, and that
 * its disks fit `type` (400 naming backup_id or type otherwise); `deployBackup` then writes the
 * backup's disks and configs onto the new node in the creation's transaction (with the request's
 * interfaces, already checked, if it named any) and returns the config to boot. Node creation
 * (node-create.service.ts) already calls both, and runs the `node_provision` operation afterwards
 * exactly as for an image.
 */
export interface BackupSource {
  backupId: number;
  /** The backed-up node's root password hash, which the new node takes over. */
  rootPassHash: string | null;
}

export async function resolveBackupSource(
  _db: Kysely<Database>,
  _ctx: Context,
  _scope: AccountScope,
  _backupId: number,
  _type: NodeTypeDataT,
): Promise<BackupSource> {
  throw fail.badRequest('backup_id: not supported yet', 'backup_id');
}

export async function deployBackup(
  _db: Kysely<Database>,
  _ctx: Context,
  _node: NodeRow,
  _source: BackupSource,
  _interfaces: readonly Interface[],
): Promise<{ configId: number | null }> {
  throw fail.badRequest('backup_id: not supported yet', 'backup_id');
}
