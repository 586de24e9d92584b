import fs from 'node:fs';
import type { Logger } from 'pino';
import type { DeploySettings, DiskSpec, ImageFiles, Progress } from '../driver.ts';
import { diskFiles } from './data-layout.ts';
import { writeDeploySettings } from './deploy-settings.ts';
import { run } from './run.ts';
import { copySparse } from './sparse-copy.ts';
import { gunzipSparse } from './sparse-gunzip.ts';

const MIB = 1024 * 1024;

/** Whether the file starts with an ext2/3/4 filesystem (its superblock's magic 0xEF53 at byte 1080). */
export function isExtFilesystem(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const magic = Buffer.alloc(2);
    return fs.readSync(fd, magic, 0, 2, 1080) === 2 && magic.readUInt16LE(0) === 0xef53;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Checks the ext filesystem in `file` as fsck does at boot, fixing what it finds: a journal left to
 * replay (a disk copied from a running machine, or one its guest did not unmount) is replayed, which
 * debugfs and resize2fs need and which would otherwise undo what they write. `force: false` skips a
 * full check of a filesystem marked clean. e2fsck exits 1 or 2 when it has fixed something: the
 * filesystem is sound then.
 */
export async function checkExtFilesystem(file: string, options: { force?: boolean } = {}): Promise<void> {
  await run('e2fsck', [...(options.force === false ? [] : ['-f']), '-y', file], { okExitCodes: [0, 1, 2] });
}

/** Makes `file` `sizeMb` long (sparse); an error when what it holds is longer. */
export function growTo(file: string, sizeMb: number): void {
  const size = fs.statSync(file).size;
  if (size > sizeMb * MIB) throw new Error(`the image (${Math.ceil(size / MIB)} MB) is larger than the disk (${sizeMb} MB)`);
  fs.truncateSync(file, sizeMb * MIB);
}

/** Formats `file` as swap; without mkswap (util-linux) it is left for the guest to format. */
export async function formatSwap(file: string): Promise<void> {
  await run('mkswap', [file]).catch((error: Error) => {
    if ((error.cause as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') throw error;
  });
}

/** `target` becomes a copy of `source`, or is removed when there is none. */
export function replaceOrRemove(source: string | undefined, target: string): void {
  if (source === undefined) fs.rmSync(target, { force: true });
  else fs.copyFileSync(source, target);
}

/** Disks as raw files under `<dir>/disks/<key>/`, made and deployed without mounting anything. */
export class DiskStore {
  #dir: string;
  #log: Logger;

  constructor(dir: string, log: Logger) {
    this.#dir = dir;
    this.#log = log;
  }

  async prepare(spec: DiskSpec): Promise<void> {
    const files = diskFiles(this.#dir, spec.key);
    if (fs.existsSync(files.disk)) return;
    fs.mkdirSync(files.folder, { recursive: true, mode: 0o700 });
    const staging = `${files.disk}.preparing`;
    fs.rmSync(staging, { force: true });
    fs.closeSync(fs.openSync(staging, 'w', 0o600));
    fs.truncateSync(staging, spec.sizeMb * MIB);
    if (spec.filesystem === 'ext3' || spec.filesystem === 'ext4') {
      await run('mke2fs', ['-q', '-t', spec.filesystem, '-F', staging]);
    } else if (spec.filesystem === 'swap') {
      await formatSwap(staging);
    }
    fs.renameSync(staging, files.disk);
  }

  /**
   * The image onto the disk, grown to its size, then the settings; the disk is replaced only once all
   * of it is done. Settings need a bare ext filesystem: a whole-disk image (partitions) is deployed
   * without them. A raw disk gets the image's data as it is.
   */
  async deploy(disk: DiskSpec, image: ImageFiles, settings: DeploySettings, onProgress?: Progress): Promise<void> {
    const files = diskFiles(this.#dir, disk.key);
    fs.mkdirSync(files.folder, { recursive: true, mode: 0o700 });
    const staging = `${files.disk}.deploying`;
    fs.rmSync(staging, { force: true });
    try {
      if (image.format === 'gzip') {
        // Past the disk's size the deploy would fail anyway: it stops there rather than unpack the rest.
        const maxBytes = Math.min(disk.sizeMb * MIB, image.maxUnpackedBytes ?? Number.POSITIVE_INFINITY);
        await gunzipSparse(image.disk, staging, { maxBytes, onProgress });
      } else {
        await copySparse(image.disk, staging, onProgress);
      }
      fs.chmodSync(staging, 0o600);
      growTo(staging, disk.sizeMb);
      if (disk.filesystem === 'raw') {
        this.#log.info({ disk: disk.key }, 'the image is deployed onto a raw disk as it is, without its settings');
      } else if (isExtFilesystem(staging)) {
        await checkExtFilesystem(staging);
        await run('resize2fs', [staging]);
        await writeDeploySettings(staging, settings);
      } else {
        this.#log.warn({ disk: disk.key }, 'the image is not a bare ext filesystem: it is deployed without its settings');
      }
      replaceOrRemove(image.kernel, files.kernel);
      replaceOrRemove(image.initrd, files.initrd);
      fs.renameSync(staging, files.disk);
    } catch (error) {
      fs.rmSync(staging, { force: true });
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    fs.rmSync(diskFiles(this.#dir, key).folder, { recursive: true, force: true });
  }
}
