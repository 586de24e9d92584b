import crypto from 'node:crypto';
import { finished, type Readable } from 'node:stream';
import type { Context } from '../../context.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { randomHex } from '../../random.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { grantToCreator } from '../account/grant-entities.ts';
import { type Principal, scopeOf } from '../account/principal.ts';
import { assertMayTag } from '../tags/tag.service.ts';
import { IMAGE_UPLOAD_EXPIRE, IMAGE_UPLOAD_PROCESS } from './image.jobs.ts';
import { insertPrivateImage, updateImageRow } from './image.repository.ts';
import type { ImageUpload, UploadImage } from './image.schema.ts';
import { imageEntityOf, scheduleImageOperation, tagNewImage } from './image.service.ts';
import {
  findUploadByTokenHash,
  insertImageUpload,
  markUploadReceived,
  UPLOAD_PENDING,
  UPLOAD_RECEIVED,
} from './image-upload.repository.ts';
import { tooLarge, UploadCheck } from './upload-check.ts';

/** Where image data is PUT, outside /v4: the token in the URL is the credential. */
export const IMAGE_DATA_PATH = '/uploads/images';
/** Data must arrive within this long of the upload's creation: 24 simulated hours, times CUMULO_TIME_SCALE on the service clock. */
export const UPLOAD_WINDOW_MS = 24 * 60 * 60 * 1000;

const MIB = 1024 * 1024;
const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

function hashUploadToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/**
 * Creates a `pending_upload` private image and the URL its data goes to. Only the token's hash is
 * stored; a job at the deadline deletes the image if no data arrived.
 */
export async function startImageUpload(
  ctx: Context,
  principal: Principal,
  body: UploadImage,
  baseUrl: string,
): Promise<ImageUpload> {
  const region = ctx.catalog.region(body.region);
  if (!region) throw fail.badRequest(`Region ${body.region} does not exist`, 'region');
  if (region.status === 'outage') {
    throw fail.badRequest(`Region ${region.id} has an outage; no images can be uploaded there until it is resolved`, 'region');
  }
  assertMayTag(principal, body.tags);
  const token = randomHex(ctx.random, 32);
  const nowMs = ctx.clock.nowMs();
  const expiresAt = ctx.timing.after(UPLOAD_WINDOW_MS);
  const now = toTimestamp(nowMs);
  const image = await inTransaction(ctx.db, async (trx) => {
    const row = await insertPrivateImage(
      trx,
      {
        account_id: principal.accountId,
        label: body.label,
        description: body.description ?? null,
        created: now,
        updated: now,
        created_by: principal.username,
        size: 0,
        type: 'manual',
        expiry: null,
        vendor: null,
        status: 'pending_upload',
        region: body.region,
        blob_key: null,
        source_node_id: null,
      },
      `uploading/${token.slice(0, 24)}`,
    );
    await insertImageUpload(trx, {
      image_id: row.id,
      account_id: principal.accountId,
      user_id: principal.userId,
      token_hash: hashUploadToken(token),
      expires_at: expiresAt,
      state: UPLOAD_PENDING,
    });
    await grantToCreator(trx, scopeOf(principal), 'image', row.num);
    await enqueueJob(trx, ctx.clock, {
      kind: IMAGE_UPLOAD_EXPIRE,
      accountId: principal.accountId,
      runAt: expiresAt,
      payload: { imageId: row.id },
      dedupeKey: `${IMAGE_UPLOAD_EXPIRE}:${row.id}`,
    });
    return tagNewImage(trx, ctx, principal, row, body.tags);
  });
  return { image, upload_to: `${baseUrl.replace(/\/+$/, '')}${IMAGE_DATA_PATH}/${token}` };
}

export interface ImageData {
  contentType: string | undefined;
  contentLength: number | undefined;
  body: Readable;
}

/** The upload a token opens, or the reason it opens none. */
async function openUpload(ctx: Context, token: string) {
  const missing = () => fail.notFound('No image upload is waiting at this URL: it is wrong, or the upload was cancelled');
  if (!TOKEN_PATTERN.test(token)) throw missing();
  const tokenHash = hashUploadToken(token);
  const upload = await findUploadByTokenHash(ctx.db, tokenHash);
  if (!upload) throw missing();
  if (upload.state === UPLOAD_RECEIVED) {
    throw fail.conflict('Data was already uploaded to this URL; an upload URL can be used once');
  }
  if (upload.expires_at <= ctx.clock.nowMs()) {
    throw fail.notFound(`This upload URL expired at ${toTimestamp(upload.expires_at)}; start a new upload`);
  }
  return { ...upload, tokenHash };
}

function isOctetStream(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/octet-stream';
}

/**
 * Feeds the request into the check. A client that goes away mid-upload fails the check, which
 * fails the blob write and removes its partial file; a failing check stops reading the request.
 */
function feed(body: Readable, check: UploadCheck): void {
  body.pipe(check);
  check.once('error', () => body.unpipe(check));
  finished(body, (err) => {
    if (err) check.destroy(fail.badRequest('The upload was interrupted before all data arrived'));
  });
}

/**
 * Receives an image's data: streams it to the blob store while checking it (gzip, size caps compressed and unpacked),
 * then, if this is the first complete upload for the token, makes the blob the image's and starts
 * the upload_processing operation that makes the image available. Any failure leaves no blob.
 */
export async function receiveImageData(ctx: Context, token: string, data: ImageData): Promise<void> {
  const upload = await openUpload(ctx, token);
  if (!isOctetStream(data.contentType)) {
    throw fail.unsupportedMediaType('Image data must be sent with Content-Type: application/octet-stream');
  }
  const max = ctx.config.imageUploadMaxBytes;
  if (data.contentLength !== undefined && data.contentLength > max) {
    throw tooLarge(max);
  }
  const key = `images/${upload.account_id}/${upload.image_num}-${randomHex(ctx.random, 6)}.img.gz`;
  const check = new UploadCheck({
    maxBytes: max,
    maxUnpackedBytes: ctx.config.imageUnpackedMaxBytes,
    maxRatio: ctx.config.imageUnpackedMaxRatio,
  });
  feed(data.body, check);
  await ctx.blobs.put(key, check);
  // An image's size is the disk it needs: the raw image decompressed, in MB rounded up.
  const sizeMb = Math.max(1, Math.ceil(check.uncompressedBytes / MIB));
  try {
    await inTransaction(ctx.db, async (trx) => {
      // The image first, as its expiry job does: the two take turns instead of deadlocking.
      await lockRows(trx, 'images', 'num', [upload.image_num]);
      // Another upload may have won, or the upload expired or was deleted while the data streamed.
      if (!(await markUploadReceived(trx, upload.tokenHash, ctx.clock.nowMs()))) {
        throw fail.conflict('This upload URL was used or cancelled while the data arrived; nothing was stored');
      }
      const nowStamp = toTimestamp(ctx.clock.nowMs());
      const image = await updateImageRow(
        trx,
        upload.image_num,
        { blob_key: key, size: sizeMb, updated: nowStamp },
        'pending_upload',
      );
      if (!image) throw fail.notFound('The image of this upload no longer exists');
      // The user who asked for the upload URL; the PUT itself carries no user.
      const actor = { accountId: upload.account_id, userId: upload.user_id, username: image.created_by };
      await scheduleImageOperation(trx, ctx, actor, {
        kind: IMAGE_UPLOAD_PROCESS,
        image,
        event: { action: 'image_upload', entity: imageEntityOf(image) },
      });
    });
  } catch (err) {
    await ctx.blobs.delete(key);
    throw err;
  }
}
