import { lockRows } from '../../db/row-locks.ts';
import type { JobContext, JobHandler } from '../../jobs/handler.ts';
import type { OperationHandler } from '../../jobs/operation.ts';
import type { TransitionKind } from '../../jobs/transitions.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { revokeEntityGrants } from '../account/grant-entities.ts';
import { removeTags } from '../tags/tag.service.ts';
import {
  deleteImageRow,
  findExpiredAutomaticImages,
  findImageByNum,
  findImageOfAccount,
  type ImageRow,
  updateImageRow,
} from './image.repository.ts';
import { captureImage, captureReady } from './image-capture.ts';
import { capturedImageKey, deleteImageBlobs } from './image-files.ts';
import { deleteUploadOfImage, findUploadOfImage, UPLOAD_PENDING } from './image-upload.repository.ts';

/** Capturing a disk: the image goes creating -> available. */
export const IMAGE_CREATE = 'image.create';
/** Processing uploaded data: the image goes pending_upload -> available. */
export const IMAGE_UPLOAD_PROCESS = 'image.upload_process';
/** At an upload URL's expiry: cancels the upload (deleting the image) if no data arrived. */
export const IMAGE_UPLOAD_EXPIRE = 'image.upload_expire';
/** At an automatic image's expiry: removes the automatic images whose time is up. */
export const IMAGE_EXPIRE = 'image.expire';

function imageNumOf(job: JobContext): number {
  return Number(job.payload.imageNum);
}

/**
 * Removes an image row inside the job's transaction, then its data. The blob goes before the
 * commit; should the commit fail, the retried job finds the row again and the delete of the
 * missing blob is a no-op.
 */
async function removeImage({ trx, ctx }: JobContext, row: ImageRow): Promise<void> {
  if (row.account_id === null) return;
  await deleteImageRow(trx, row.num, row.id);
  await revokeEntityGrants(trx, row.account_id, 'image', row.num);
  await removeTags(trx, row.account_id, 'image', row.num);
  // A capture that failed may have stored part of its files under the key it was writing.
  const key = row.blob_key ?? (row.status === 'creating' ? capturedImageKey(row.account_id, row.num) : null);
  if (key !== null) await deleteImageBlobs(ctx.blobs, key);
}

/** An image whose operation failed for good is removed rather than left half made. */
async function removeFailed(job: JobContext, status: string): Promise<void> {
  const row = await findImageByNum(job.trx, imageNumOf(job));
  if (row?.status === status) await removeImage(job, row);
}

/** An operation that makes an image `available` when it finishes; one that fails for good removes the image. */
function makesAvailable(kind: string, transition: TransitionKind, from: string): OperationHandler {
  return {
    kind,
    transition,
    async finish({ trx, ctx, payload }) {
      // Deleted while the work ran: nothing left to finish.
      await updateImageRow(trx, Number(payload.imageNum), { status: 'available', updated: toTimestamp(ctx.clock.nowMs()) }, from);
    },
    fail: (job) => removeFailed(job, from),
  };
}

/**
 * A capture: it starts once its disk is ready (a disk still being written is waited for, one that
 * will never be fails the image); with real nodes its work stores the disk's files
 * (image-capture.ts), which the image then points to.
 */
const captureOperation: OperationHandler = {
  ...makesAvailable(IMAGE_CREATE, 'image_create', 'creating'),
  ready: captureReady,
  work: captureImage,
  async finish({ trx, ctx, payload, job }) {
    const captured = ctx.compute === null ? {} : { blob_key: capturedImageKey(job.account_id ?? 0, Number(payload.imageNum)) };
    const changes = { status: 'available', updated: toTimestamp(ctx.clock.nowMs()), ...captured };
    // Deleted while the work ran: nothing left to finish.
    await updateImageRow(trx, Number(payload.imageNum), changes, 'creating');
  },
};

const expireUpload: JobHandler = {
  kind: IMAGE_UPLOAD_EXPIRE,
  async run(job) {
    const imageId = String(job.payload.imageId);
    // Data that arrives meanwhile is committed first or finds the image gone, never half of each.
    await lockRows(job.trx, 'images', 'id', [imageId]);
    const upload = await findUploadOfImage(job.trx, imageId);
    if (!upload) return;
    const row = upload.state === UPLOAD_PENDING ? await findImageOfAccount(job.trx, upload.account_id, imageId) : undefined;
    // Data arrived in time (or the image is gone): only the spent upload record goes.
    if (row) await removeImage(job, row);
    else await deleteUploadOfImage(job.trx, imageId);
  },
};

const expireAutomaticImages: JobHandler = {
  kind: IMAGE_EXPIRE,
  async run(job) {
    for (const row of await findExpiredAutomaticImages(job.trx, toTimestamp(job.ctx.clock.nowMs()))) {
      await removeImage(job, row);
    }
  },
};

export const imageOperations: readonly OperationHandler[] = [
  captureOperation,
  makesAvailable(IMAGE_UPLOAD_PROCESS, 'upload_processing', 'pending_upload'),
];

export const imageJobs: readonly JobHandler[] = [expireUpload, expireAutomaticImages];
