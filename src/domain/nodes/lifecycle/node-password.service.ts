import type { Context } from '../../../context.ts';
import { fail } from '../../../errors.ts';
import { type Principal, scopeOf } from '../../account/principal.ts';
import { findDisks } from '../disks/disk.repository.ts';
import { resetDiskPassword } from '../disks/disk-actions.service.ts';
import { nodeFor } from '../node-access.ts';

const ROOT_FILESYSTEMS = new Set(['ext3', 'ext4']);

/**
 * Resets the node's root password (event password_reset) on its one disk with a root filesystem, as
 * the disk password operation does; a node with several such disks must name one through that
 * operation (400), and the node must be powered off.
 */
export async function resetNodePassword(ctx: Context, principal: Principal, nodeId: number, password: string): Promise<void> {
  const node = await nodeFor(ctx.db, scopeOf(principal), nodeId, 'read_write');
  const roots = (await findDisks(ctx.db, node.account_id, node.id)).filter((d) => ROOT_FILESYSTEMS.has(d.filesystem));
  const [disk] = roots;
  if (!disk) throw fail.badRequest('The node has no disk with a root filesystem (ext3 or ext4)');
  if (roots.length > 1) {
    throw fail.badRequest('The node has several disks with a root filesystem; reset the password of one through its disk');
  }
  await resetDiskPassword(ctx, principal, nodeId, disk.id, password);
}
