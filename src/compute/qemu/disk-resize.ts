import fs from 'node:fs';
import type { DiskSpec } from '../driver.ts';
import { checkExtFilesystem, formatSwap, isExtFilesystem } from './disk-store.ts';
import { run } from './run.ts';

const MIB = 1024 * 1024;

function hasExtFilesystem(file: string, spec: Pick<DiskSpec, 'filesystem'>): boolean {
  return (spec.filesystem === 'ext3' || spec.filesystem === 'ext4') && isExtFilesystem(file);
}

/**
 * The smallest size (MB) the ext filesystem in `file` can be shrunk to, as `resize2fs -P` estimates
 * it. `forced`: also on a filesystem not checked since it was last used (an estimate then).
 */
async function extMinimumMb(file: string, forced: boolean): Promise<number> {
  const estimate = await run('resize2fs', [...(forced ? ['-f'] : []), '-P', file]);
  const blocks = /minimum size of the filesystem:\s*(\d+)/.exec(estimate)?.[1];
  const header = await run('dumpe2fs', ['-h', file]);
  const blockSize = /^Block size:\s*(\d+)/m.exec(header)?.[1];
  if (blocks === undefined || blockSize === undefined) throw new Error(`resize2fs -P gave no minimum size for ${file}`);
  return Math.ceil((Number(blocks) * Number(blockSize)) / MIB);
}

/**
 * About the smallest size (MB) the disk in `file` can be shrunk to without losing what it holds,
 * read without writing to it: its ext filesystem's estimated minimum; null when nothing on it needs
 * keeping (raw, swap) or it cannot be measured (a whole-disk image with partitions, never shrunk).
 */
export async function diskMinimumMb(file: string, spec: Pick<DiskSpec, 'filesystem'>): Promise<number | null> {
  return hasExtFilesystem(file, spec) ? extMinimumMb(file, true) : null;
}

/**
 * Grows or shrinks the disk in `file` to `spec.sizeMb`, with its filesystem: ext3/ext4 checked
 * with `e2fsck -f` (which resize2fs needs) then resized with `resize2fs`, swap formatted again, raw
 * cut or extended. A shrink below what the filesystem holds, or of a disk whose partitions it
 * cannot read, is an error with the disk's size and files as they were. The disk must not be in
 * use; done again, it leaves a disk of that size as it is.
 */
export async function resizeDiskFile(file: string, spec: DiskSpec): Promise<void> {
  const target = spec.sizeMb * MIB;
  const shrinking = target < fs.statSync(file).size;
  const ext = hasExtFilesystem(file, spec);
  if (shrinking && !ext && (spec.filesystem === 'ext3' || spec.filesystem === 'ext4'))
    throw new Error(`disk ${spec.key} holds no bare ext filesystem (a whole-disk image): it is not shrunk`);
  if (ext) {
    await checkExtFilesystem(file);
    if (shrinking) {
      const minimum = await extMinimumMb(file, false);
      if (spec.sizeMb < minimum)
        throw new Error(`disk ${spec.key} cannot shrink to ${spec.sizeMb} MB: its filesystem needs at least ${minimum} MB`);
    } else {
      fs.truncateSync(file, target);
    }
    // resize2fs takes the size in KiB with a K suffix.
    await run('resize2fs', [file, `${spec.sizeMb * 1024}K`]);
  }
  fs.truncateSync(file, target);
  if (spec.filesystem === 'swap') await formatSwap(file);
}
