import fs from 'node:fs';
import path from 'node:path';
import { disksDir } from './data-layout.ts';

const MIB = 1024 * 1024;

/** Bytes the files under `dir` take on their filesystem: the blocks allocated, so a sparse file counts only what it holds. */
async function allocatedBytes(dir: string): Promise<number> {
  // A folder or file removed while it is being counted (a disk deleted meanwhile) takes nothing.
  const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await allocatedBytes(file);
    else total += ((await fs.promises.lstat(file).catch(() => null))?.blocks ?? 0) * 512;
  }
  return total;
}

/**
 * The storage (MB) the disks under `computeDir` may take altogether: the free space of the
 * filesystem their files go on (what a process that is not root may still write) plus what their
 * files take on it already. Not the filesystem's total size: that also counts what disks can never
 * have (the system, the database, images and backups kept on the same filesystem, blocks reserved
 * for root), so promising it would promise space that is not there.
 */
export async function diskCapacityMb(computeDir: string): Promise<number> {
  // Where the disk files go: a volume mounted there for them is the storage that must hold them.
  const disks = disksDir(computeDir);
  fs.mkdirSync(disks, { recursive: true, mode: 0o700 });
  const stats = await fs.promises.statfs(disks);
  return Math.floor((stats.bavail * stats.bsize + (await allocatedBytes(disks))) / MIB);
}
