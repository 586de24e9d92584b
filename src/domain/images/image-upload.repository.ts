import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { ImageUploadTable } from './image-upload.table.ts';

export type ImageUploadRow = Selectable<ImageUploadTable>;

/** Waiting for data. */
export const UPLOAD_PENDING = 'pending';
/** Data arrived; the upload URL no longer works. */
export const UPLOAD_RECEIVED = 'received';

export async function insertImageUpload(db: Kysely<Database>, values: ImageUploadTable): Promise<void> {
  await db.insertInto('image_uploads').values(values).execute();
}

/** The upload an upload URL's token stands for, with the image's number. */
export function findUploadByTokenHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<(ImageUploadRow & { image_num: number }) | undefined> {
  return db
    .selectFrom('image_uploads')
    .innerJoin('images', 'images.id', 'image_uploads.image_id')
    .selectAll('image_uploads')
    .select('images.num as image_num')
    .where('image_uploads.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export function findUploadOfImage(db: Kysely<Database>, imageId: string): Promise<ImageUploadRow | undefined> {
  return db.selectFrom('image_uploads').selectAll().where('image_id', '=', imageId).executeTakeFirst();
}

export async function deleteUploadOfImage(db: Kysely<Database>, imageId: string): Promise<void> {
  await db.deleteFrom('image_uploads').where('image_id', '=', imageId).execute();
}

/**
 * Marks a pending, unexpired upload received. Only one caller can win this: false when the upload
 * has gone (cancelled, deleted), was received already, or expired meanwhile.
 */
export async function markUploadReceived(db: Kysely<Database>, tokenHash: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable('image_uploads')
    .set({ state: UPLOAD_RECEIVED })
    .where('token_hash', '=', tokenHash)
    .where('state', '=', UPLOAD_PENDING)
    .where('expires_at', '>', nowMs)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
