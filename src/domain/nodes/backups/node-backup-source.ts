import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { fail } from '../../../errors.ts';
import type { AccountScope } from '../../account/principal.ts';
import type { NodeTypeDataT } from '../../catalog/catalog.ts';
import type { Interface } from '../configs/config.schema.ts';
import type { NodeRow } from '../node.repository.ts';
import { nodeNamedIn } from '../node-access.ts';
import { findBackup } from './backup.repository.ts';
import { contentSize, type NodeContent, parseContent, writeContent } from './backup-content.ts';
import type { RestorePlan } from './backup-copies.ts';

/**
 * Creating a node from `backup_id`: `resolveBackupSource` checks, before anything is written, the
 * backup and the type; `deployBackup` writes the backup's disks and configs onto the new node in the
 * creation's transaction and returns the config to boot. Node creation (node-create.service.ts) provisions it afterwards as for an image.
 */
export interface BackupSource {
  backupId: number;
  /** The backed-up node's root password hash, which the new node takes over. */
  rootPassHash: string | null;
  content: NodeContent;
}

/**
 * The backup must be a successful one of a node of the account that the caller may change (one it
 * cannot see is a 400 naming backup_id, never revealing another account's backups; a read_only
 * grant is a 403), the new node must go to the backup's region (400 naming region), and the type
 * must have room for its disks (400 naming type).
 */
export async function resolveBackupSource(
  db: Kysely<Database>,
  _ctx: Context,
  scope: AccountScope,
  backupId: number,
  place: { region: string; type: NodeTypeDataT },
): Promise<BackupSource> {
  const { type } = place;
  const unknown = `Backup ${backupId} does not exist or is not available to you`;
  const backup = await findBackup(db, scope.accountId, backupId);
  if (!backup) throw fail.badRequest(unknown, 'backup_id');
  await nodeNamedIn(db, scope, backup.node_id, 'read_write', 'backup_id', unknown);
  if (backup.status !== 'successful') {
    throw fail.badRequest(`Backup ${backupId} is ${backup.status}; only a successful backup can be deployed`, 'backup_id');
  }
  if (backup.region !== place.region) {
    throw fail.badRequest(`Backup ${backupId} is in ${backup.region}; a node made from it must be in that region too`, 'region');
  }
  const content = parseContent(backup.content);
  const size = contentSize(content);
  if (size > type.disk) {
    throw fail.badRequest(`Type ${type.id} has ${type.disk} MB of disk; backup ${backupId} needs ${size} MB`, 'type');
  }
  return { backupId, rootPassHash: content.rootPassHash, content };
}

/**
 * The request's interfaces (checked), when it named any, replace those of the backed-up configs;
 * `plan` says which of the backup's disk copies go onto which new disk (real nodes).
 */
export async function deployBackup(
  db: Kysely<Database>,
  ctx: Context,
  node: NodeRow,
  source: BackupSource,
  interfaces: readonly Interface[],
): Promise<{ configId: number | null; plan: RestorePlan }> {
  const { configId, diskIds } = await writeContent(db, ctx, node, source.content, interfaces.length > 0 ? interfaces : undefined);
  return { configId, plan: { backupId: source.backupId, disks: [...diskIds], oldDisks: [], configId } };
}
