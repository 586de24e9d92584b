import type { Context } from '../../../context.ts';
import { lockRows } from '../../../db/row-locks.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { assertDiskFits } from '../compute/disk-capacity.ts';
import { deleteConfigsOfNode } from '../configs/config.repository.ts';
import { deleteDisksOfNode, findDisks } from '../disks/disk.repository.ts';
import { assertDiskSpace } from '../disks/disk.service.ts';
import { updateNodeRow } from '../node.repository.ts';
import { claimSettledNode, nodeFor, nodeNamedIn } from '../node-access.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';
import type { RestoreBackup } from './backup.schema.ts';
import { existingBackup } from './backup.service.ts';
import { contentSize, parseContent, writeContent } from './backup-content.ts';
import type { RestorePlan } from './backup-copies.ts';

/** The busy marker (and transition) of a node a backup is being restored to. */
export const RESTORE_BUSY = 'backup_restore';

/**
 * Restores a successful backup onto a node of the account the caller may change (event
 * backups_restore): the target is `restoring` while the disks are written, then `offline`. With
 * `overwrite` its disks and configs go first and it takes the backed-up root password and image;
 * without, the backup's disks must fit in its free space (400 about insufficient space otherwise).
 */
export async function restoreBackup(
  ctx: Context,
  principal: Principal,
  nodeId: number,
  backupId: number,
  body: RestoreBackup,
): Promise<void> {
  const scope = scopeOf(principal);
  await inTransaction(ctx.db, async (trx) => {
    // Both nodes at once, in id order: two restores crossing between two nodes take turns.
    await lockRows(trx, 'nodes', 'id', [nodeId, body.node_id]);
    const source = await nodeFor(trx, scope, nodeId, 'read_write');
    const backup = await existingBackup(trx, source, backupId);
    if (backup.status !== 'successful') {
      throw fail.badRequest(`Backup ${backup.id} is ${backup.status}; only a successful backup can be restored`);
    }
    const target = await nodeNamedIn(trx, scope, body.node_id, 'read_write', 'node_id');
    const content = parseContent(backup.content);
    const overwrite = body.overwrite === true;
    await claimSettledNode(trx, target, {
      busy: RESTORE_BUSY,
      status: 'restoring',
      updated: toTimestamp(ctx.clock.nowMs()),
      ...(overwrite ? { root_pass_hash: content.rootPassHash, image: content.image } : {}),
    });
    const oldDisks = overwrite ? (await findDisks(trx, target.account_id, target.id)).map((d) => d.id) : [];
    if (overwrite) {
      await deleteConfigsOfNode(trx, target.account_id, target.id);
      await deleteDisksOfNode(trx, target.account_id, target.id);
    }
    await assertDiskSpace(trx, ctx, target, contentSize(content), 'node_id');
    // After an overwrite's deletes: the disks it replaces are no longer promised.
    await assertDiskFits(trx, ctx, { sizeMb: contentSize(content), field: 'node_id', nodeId: target.id });
    const { configId, diskIds } = await writeContent(trx, ctx, target, content);
    const plan: RestorePlan = { backupId: backup.id, disks: [...diskIds], oldDisks, configId };
    // The restored configs are the backed-up node's, so boot picks the one it booted last, as it would have.
    if (overwrite) await updateNodeRow(trx, target.account_id, target.id, { last_booted_config_id: configId });
    await startNodeOperation(trx, ctx, actorOf(principal), {
      node: target,
      action: 'backups_restore',
      kind: NODE_OPS.restore,
      payload: { backupId: backup.id, plan },
      dataMb: contentSize(content),
    });
  });
}
