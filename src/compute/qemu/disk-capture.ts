import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { CapturedDisk, Progress } from '../driver.ts';
import { diskFiles } from './data-layout.ts';
import { checkExtFilesystem, isExtFilesystem } from './disk-store.ts';
import { run } from './run.ts';
import { copySparse } from './sparse-copy.ts';

/** The size in bytes of the ext filesystem in `file`, from its superblock (dumpe2fs). */
async function extFilesystemBytes(file: string): Promise<number> {
  const header = await run('dumpe2fs', ['-h', file]);
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)$`, 'm').exec(header)?.[1] ?? Number.NaN);
  const bytes = field('Block count') * field('Block size');
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new Error(`dumpe2fs gave no block count and size for ${file}`);
  return bytes;
}

/**
 * Disk `key` as image files: a sparse copy of its disk (made inside `whileReading`, which holds off
 * writers), its filesystem shrunk to what it holds, gzipped into `to.disk`; its kernel and initrd
 * copied beside when it has both. Done again, it starts over.
 */
export async function captureDiskFiles(
  dir: string,
  key: string,
  to: CapturedDisk,
  whileReading: (read: () => Promise<void>) => Promise<void>,
  onProgress?: Progress,
): Promise<{ bootFiles: boolean; sizeMb: number }> {
  const source = diskFiles(dir, key);
  if (!fs.existsSync(source.disk)) throw new Error(`disk ${key} has no file to capture`);
  const staging = `${to.disk}.raw`;
  fs.rmSync(staging, { force: true });
  let bytes: number;
  try {
    // The copy is most of the work; shrinking and compressing what it holds, the rest.
    await whileReading(() => copySparse(source.disk, staging, onProgress && ((f) => onProgress(f * 0.8))));
    if (isExtFilesystem(staging)) {
      await checkExtFilesystem(staging);
      await run('resize2fs', ['-M', staging]);
      fs.truncateSync(staging, await extFilesystemBytes(staging));
    }
    bytes = fs.statSync(staging).size;
    await pipeline(fs.createReadStream(staging), createGzip({ level: 1 }), fs.createWriteStream(to.disk, { mode: 0o600 }));
    onProgress?.(1);
  } finally {
    fs.rmSync(staging, { force: true });
  }
  const bootFiles = fs.existsSync(source.kernel) && fs.existsSync(source.initrd);
  if (bootFiles) {
    fs.copyFileSync(source.kernel, to.kernel);
    fs.copyFileSync(source.initrd, to.initrd);
  }
  return { bootFiles, sizeMb: Math.ceil(bytes / (1024 * 1024)) };
}
