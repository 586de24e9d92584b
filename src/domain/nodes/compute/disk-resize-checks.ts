import type { Context } from '../../../context.ts';
import { fail } from '../../../errors.ts';
import type { DiskRow } from '../disks/disk.repository.ts';
import type { NodeRow } from '../node.repository.ts';
import { diskSpec } from './machine-work.ts';

/**
 * With real nodes, a disk shrink must leave room for what the disk's filesystem holds (resize2fs's
 * estimate; the job checks it again on the disk itself): a 400 before anything is written. A grow
 * is the host's storage's to allow (assertDiskFits, in the resize's transaction).
 */
export async function assertRealShrinkFits(ctx: Context, disk: DiskRow, sizeMb: number): Promise<void> {
  if (ctx.compute === null || sizeMb >= disk.size) return;
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
