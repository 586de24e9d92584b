import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockRows } from '../../db/row-locks.ts';
import type { JobContext } from '../../jobs/handler.ts';
import type { Readiness, WorkContext } from '../../jobs/operation.ts';
import { diskKey } from '../nodes/compute/compute-keys.ts';
import { type DiskForImage, findDiskForImage } from '../nodes/disks/disk-for-image.ts';
import { findImageByNum, updateImageRow } from './image.repository.ts';
import { capturedImageKey, deleteImageBlobs, imageBootKeys } from './image-files.ts';

/**
 * Whether a disk can be captured: at once when ready; once it is, when it is still being written by
 * an operation on its node (a new node's provisioning, a disk create or resize); never when it is gone,
 * being deleted, or was left unwritten by an operation that failed.
 */
export function diskCaptureState(diskId: number, disk: Pick<DiskForImage, 'status' | 'nodeBusy'> | undefined): Readiness {
  if (disk === undefined) return { refused: `Disk ${diskId} was deleted before it could be captured` };
  if (disk.status === 'ready') return 'ready';
  if (disk.status === 'not ready' && disk.nodeBusy !== null) return 'wait';
  if (disk.status === 'deleting') return { refused: `Disk ${diskId} is being deleted; it cannot be captured` };
  return { refused: `Disk ${diskId} could not be made (the operation writing it failed); it cannot be captured` };
}

/**
 * The capture's start: it waits until its disk is ready (diskCaptureState), the disk held while it
 * looks, as the create holds it. An image deleted meanwhile has nothing to wait for.
 */
export async function captureReady({ trx, payload }: JobContext): Promise<Readiness> {
  const image = await findImageByNum(trx, Number(payload.imageNum));
  if (image?.account_id == null || image.status !== 'creating') return 'ready';
  const diskId = Number(payload.diskId);
  await lockRows(trx, 'disks', 'id', [diskId]);
  // The disk the caller could read when the image was made: the account's, whatever grants say now.
  return diskCaptureState(diskId, await findDiskForImage(trx, { accountId: image.account_id, restrictedUserId: null }, diskId));
}

/**
 * The real work of an image capture (real nodes): the disk's filesystem gzipped into the blob store
 * under the image's captured key, with the kernel and initrd it boots with beside it (image-files.ts
 * finds them there). The data goes last, so an image whose data is stored has its boot files too.
 */
export async function captureImage(job: WorkContext): Promise<void> {
  const driver = job.ctx.compute;
  if (driver === null) throw new Error('an image capture ran without a compute driver');
  const row = await findImageByNum(job.ctx.db, Number(job.payload.imageNum));
  // Deleted (or already captured) meanwhile: nothing left to do.
  if (row?.account_id == null || row.status !== 'creating') return;
  const key = capturedImageKey(row.account_id, row.num);
  const boot = imageBootKeys(key);
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-capture-'));
  try {
    const files = {
      disk: path.join(staging, 'disk.img.gz'),
      kernel: path.join(staging, 'vmlinuz'),
      initrd: path.join(staging, 'initrd.img'),
    };
    const { bootFiles, sizeMb } = await driver.captureDisk(diskKey(Number(job.payload.diskId)), files, (f) =>
      job.progress(f * 0.9),
    );
    for (const part of ['kernel', 'initrd'] as const) {
      if (bootFiles) await job.ctx.blobs.putFile(boot[part], files[part]);
      else await job.ctx.blobs.delete(boot[part]);
    }
    await job.ctx.blobs.putFile(key, files.disk);
    // The smallest disk the image deploys onto: its filesystem shrunk to what it holds, not the disk it came from.
    await updateImageRow(job.ctx.db, row.num, { size: sizeMb }, 'creating');
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  // Deleted while it was captured: the delete may have run before the files were stored.
  if ((await findImageByNum(job.ctx.db, row.num))?.status !== 'creating') await deleteImageBlobs(job.ctx.blobs, key);
}
