import type { Context } from '../../../context.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { assertDiskFits } from '../compute/disk-capacity.ts';
import { assertRealShrinkFits, assertResizeWhilePoweredOff } from '../compute/disk-resize-checks.ts';
import { updateNodeRow } from '../node.repository.ts';
import { claimSettledNode, nodeFor } from '../node-access.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';
import { guestPasswordHash, hashRootPass } from '../root-pass.ts';
import { sumDiskSizes, updateDiskRow } from './disk.repository.ts';
import type { Disk } from './disk.schema.ts';
import {
  addDisk,
  assertDiskReady,
  assertDiskSpace,
  diskCapacity,
  diskRowToDisk,
  diskSecondary,
  existingDisk,
} from './disk.service.ts';

/** Copies a disk onto the same node (event disk_duplicate); the copy is `not ready` until its job ends. */
export async function cloneDisk(ctx: Context, principal: Principal, nodeId: number, diskId: number): Promise<Disk> {
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const source = await existingDisk(trx, node, diskId);
    assertDiskReady(source);
    await assertDiskSpace(trx, ctx, node, source.size);
    await assertDiskFits(trx, ctx, { sizeMb: source.size, nodeId: node.id });
    await claimSettledNode(trx, node, { busy: 'disk_clone' });
    const copy = await addDisk(trx, ctx, node, {
      label: `Copy of ${source.label}`.slice(0, 48),
      size: source.size,
      filesystem: source.filesystem as Disk['filesystem'],
      image: source.image,
      status: 'not ready',
    });
    await startNodeOperation(trx, ctx, actorOf(principal), {
      node,
      action: 'disk_duplicate',
      kind: NODE_OPS.diskClone,
      payload: { diskId: copy.id, sourceDiskId: source.id },
      secondary: diskSecondary(copy),
      dataMb: source.size,
    });
    return diskRowToDisk(copy);
  });
}

/** Grows or shrinks a disk within the node type's space; `not ready` while its job runs. */
export async function resizeDisk(ctx: Context, principal: Principal, nodeId: number, diskId: number, size: number) {
  if (ctx.compute !== null) {
    // Measured outside the transaction (a filesystem read); the job measures again before it changes anything.
    const node = await nodeFor(ctx.db, scopeOf(principal), nodeId, 'read_write');
    const disk = await existingDisk(ctx.db, node, diskId);
    assertDiskReady(disk);
    assertResizeWhilePoweredOff(ctx, node);
    await assertRealShrinkFits(ctx, disk, size);
  }
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const disk = await existingDisk(trx, node, diskId);
    assertDiskReady(disk);
    assertResizeWhilePoweredOff(ctx, node);
    const capacity = diskCapacity(ctx, node);
    const others = (await sumDiskSizes(trx, node.account_id, node.id)) - disk.size;
    if (others + size > capacity) {
      throw fail.badRequest(`Not enough free disk space: at most ${capacity - others} MB are available to this disk`, 'size');
    }
    await assertDiskFits(trx, ctx, { sizeMb: size - disk.size, field: 'size', nodeId: node.id });
    await claimSettledNode(trx, node, { busy: 'disk_resize' });
    const row = await updateDiskRow(trx, node.account_id, disk.id, {
      size,
      status: 'not ready',
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    await startNodeOperation(trx, ctx, actorOf(principal), {
      node,
      action: 'disk_resize',
      kind: NODE_OPS.diskResize,
      payload: { diskId: disk.id, fromSize: disk.size },
      secondary: diskSecondary(row ?? disk),
    });
  });
}

/**
 * Sets the root password on a disk's filesystem (event password_reset). The node must be powered
 * off. Only a hash is kept, as the node's root password.
 */
export async function resetDiskPassword(ctx: Context, principal: Principal, nodeId: number, diskId: number, password: string) {
  const scope = scopeOf(principal);
  await nodeFor(ctx.db, scope, nodeId, 'read_write');
  const hash = hashRootPass(ctx, password);
  // Real nodes: the hash the guest's /etc/shadow gets travels in the job (the database keeps only `hash`).
  const rootPasswordCrypt = ctx.compute === null ? null : guestPasswordHash(ctx, password);
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scope, nodeId, 'read_write');
    const disk = await existingDisk(trx, node, diskId);
    assertDiskReady(disk);
    if (disk.filesystem !== 'ext3' && disk.filesystem !== 'ext4') {
      throw fail.badRequest(`Disk ${disk.id} holds a ${disk.filesystem} filesystem, which has no root password`);
    }
    if (node.status !== 'offline' && node.status !== 'stopped') {
      throw fail.badRequest(`Shut the node down before resetting a disk's password (it is ${node.status})`);
    }
    await claimSettledNode(trx, node, { busy: 'disk_password' });
    await updateNodeRow(trx, node.account_id, node.id, { root_pass_hash: hash });
    await startNodeOperation(trx, ctx, actorOf(principal), {
      node,
      action: 'password_reset',
      kind: NODE_OPS.diskPassword,
      payload: {
        diskId: disk.id,
        ...(rootPasswordCrypt !== null && { rootPasswordCrypt, previousRootPassHash: node.root_pass_hash }),
      },
      secondary: diskSecondary(disk),
    });
  });
}
