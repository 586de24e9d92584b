import fs from 'node:fs';
import path from 'node:path';
import type { DiskCopy, DiskSpec, NetworkSettings, Progress } from '../driver.ts';
import { NETWORK_INTERFACES_DIR } from '../images/guest.ts';
import { diskFiles } from './data-layout.ts';
import { checkExtFilesystem, growTo, isExtFilesystem, replaceOrRemove } from './disk-store.ts';
import { writeExt4Files } from './ext4-settings.ts';
import { ifupdownInterfaces } from './guest-network.ts';
import type { QmpClient } from './qmp.ts';
import { run } from './run.ts';
import { copySparse } from './sparse-copy.ts';

/**
 * Copies the disks (with the kernel and initrd beside them) into `<destination>/<key>/` at one point
 * in time: a running machine is paused (QMP `stop`, which drains its I/O) while the files are
 * copied, and resumed whatever happens. Returns how long the machine was paused (0 when it was not running).
 */
export async function snapshotDisks(
  dir: string,
  qmp: QmpClient | null,
  diskKeys: readonly string[],
  destination: string,
  onProgress?: Progress,
): Promise<{ copies: DiskCopy[]; pausedMs: number }> {
  const copies = diskKeys.map((key) => {
    const files = diskFiles(dir, key);
    const folder = path.join(destination, key);
    if (!fs.existsSync(files.disk)) throw new Error(`disk ${key} has no file to copy`);
    fs.rmSync(folder, { recursive: true, force: true });
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    return {
      files,
      copy: {
        key,
        disk: path.join(folder, 'disk.img'),
        ...(fs.existsSync(files.kernel) && { kernel: path.join(folder, 'vmlinuz') }),
        ...(fs.existsSync(files.initrd) && { initrd: path.join(folder, 'initrd.img') }),
      } satisfies DiskCopy,
    };
  });
  const status = (await qmp?.execute('query-status').catch(() => null)) as { status?: string } | null | undefined;
  const pause = qmp !== null && status?.status === 'running';
  const pausedAt = performance.now();
  if (pause) await qmp.execute('stop');
  try {
    for (const [i, { files, copy }] of copies.entries()) {
      await copySparse(files.disk, copy.disk, onProgress && ((f) => onProgress((i + f) / copies.length)));
    }
  } finally {
    if (pause) await qmp.execute('cont');
  }
  const pausedMs = pause ? Math.round(performance.now() - pausedAt) : 0;
  // The boot files do not change while the machine runs: copied after it has resumed.
  for (const { files, copy } of copies) {
    if (copy.kernel) fs.copyFileSync(files.kernel, copy.kernel);
    if (copy.initrd) fs.copyFileSync(files.initrd, copy.initrd);
  }
  return { copies: copies.map((c) => c.copy), pausedMs };
}

/**
 * Replaces the disk's files with a copy: the disk grown to the disk's size (its ext filesystem
 * checked and resized, and its interfaces' addresses rewritten when `network` is given), the kernel
 * and initrd those of the copy (removed when it has none). The disk is replaced only once the copy
 * is whole; the machine using it must be stopped.
 */
export async function restoreDisk(
  dir: string,
  disk: DiskSpec,
  copy: Omit<DiskCopy, 'key'>,
  network?: readonly NetworkSettings[],
  onProgress?: Progress,
): Promise<void> {
  const files = diskFiles(dir, disk.key);
  fs.mkdirSync(files.folder, { recursive: true, mode: 0o700 });
  const staging = `${files.disk}.restoring`;
  fs.rmSync(staging, { force: true });
  try {
    await copySparse(copy.disk, staging, onProgress);
    fs.chmodSync(staging, 0o600);
    growTo(staging, disk.sizeMb);
    if (isExtFilesystem(staging)) {
      // A copy of a running machine's disk is as after a power cut: the check replays its journal.
      await checkExtFilesystem(staging);
      await run('resize2fs', [staging]);
      if (network !== undefined) {
        const stanzas = { path: `${NETWORK_INTERFACES_DIR}/cumulo`, content: ifupdownInterfaces(network), mode: 0o644 };
        await writeExt4Files(staging, [stanzas]);
      }
    }
    replaceOrRemove(copy.kernel, files.kernel);
    replaceOrRemove(copy.initrd, files.initrd);
    fs.renameSync(staging, files.disk);
  } catch (error) {
    fs.rmSync(staging, { force: true });
    throw error;
  }
}
