import type { Context } from '../../../context.ts';
import { fail } from '../../../errors.ts';
import type { DiskRow } from '../disks/disk.repository.ts';
import type { NodeRow } from '../node.repository.ts';
import { assertDiskFits } from './host-capacity.ts';
import { diskSpec } from './machine-work.ts';

/**
 * With real nodes, what a disk resize needs beyond the type's space, each a 400 before anything is
 * written: a grow must fit on the host's storage, and a shrink must leave room for what the disk's
 * filesystem holds (resize2fs's estimate; the job checks it again on the disk itself).
 */
export async function assertRealResizeFits(ctx: Context, disk: DiskRow, sizeMb: number): Promise<void> {
  if (ctx.compute === null) return;
  if (sizeMb > disk.size) return assertDiskFits(ctx, sizeMb - disk.size, 'size', disk.node_id);
  if (sizeMb === disk.size) return;
  const minimum = await ctx.compute.diskMinimumMb(diskSpec(disk)).catch((err: unknown) => {
    // Not known here: the job finds out on the disk itself.
    ctx.log.warn({ err, disk: disk.id }, 'the size a disk can shrink to could not be measured');
    return null;
  });
  if (minimum !== null && sizeMb < minimum) {
    throw fail.badRequest(`Disk ${disk.id} holds more than ${sizeMb} MB: it can shrink to ${minimum} MB at the least`, 'size');
  }
}

/** With real nodes, a disk's file is resized only while no machine uses it: the node must be powered off (400). */
export function assertResizeWhilePoweredOff(ctx: Context, node: NodeRow): void {
  if (ctx.compute === null || node.status === 'offline' || node.status === 'stopped') return;
  throw fail.badRequest(`Shut the node down before resizing its disks (it is ${node.status})`);
}
