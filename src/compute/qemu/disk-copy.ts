import fs from 'node:fs';
import type { DiskSpec, Progress } from '../driver.ts';
import { diskFiles } from './data-layout.ts';
import { checkExtFilesystem, isExtFilesystem } from './disk-store.ts';
import { copySparse } from './sparse-copy.ts';

const MIB = 1024 * 1024;

function copyOrRemove(source: string, target: string): void {
  if (fs.existsSync(source)) fs.copyFileSync(source, target);
  else fs.rmSync(target, { force: true });
}

/**
 * A sparse copy of disk `from` as disk `to`, with the kernel and initrd it boots with when it has
 * them, grown to `to`'s size; the copy is `to` only once it is whole. Done again, it starts over; failed, `to` is gone.
 */
export async function copyDiskFiles(dir: string, from: string, to: DiskSpec, onProgress?: Progress): Promise<void> {
  const source = diskFiles(dir, from);
  const target = diskFiles(dir, to.key);
  if (!fs.existsSync(source.disk)) throw new Error(`disk ${from} has no file to copy`);
  fs.mkdirSync(target.folder, { recursive: true, mode: 0o700 });
  const staging = `${target.disk}.copying`;
  fs.rmSync(staging, { force: true });
  try {
    await copySparse(source.disk, staging, onProgress);
    fs.chmodSync(staging, 0o600);
    // A disk read from a running machine may have a journal to replay: done now, the copy is sound on its own.
    if (isExtFilesystem(staging)) await checkExtFilesystem(staging, { force: false });
    if (fs.statSync(staging).size < to.sizeMb * MIB) fs.truncateSync(staging, to.sizeMb * MIB);
    copyOrRemove(source.kernel, target.kernel);
    copyOrRemove(source.initrd, target.initrd);
    fs.renameSync(staging, target.disk);
  } catch (error) {
    // `to` is a new disk: nothing of it is kept when its copy fails.
    fs.rmSync(target.folder, { recursive: true, force: true });
    throw error;
  }
}
