import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { scheduleOperation } from '../../jobs/operation.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { entityFor } from '../account/entity-access.ts';
import { revokeEntityGrants } from '../account/grant-entities.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import { type EntityRef, type EventActor, type EventSpec, recordEvent } from '../events/event.service.ts';
import { removeTags, retag, setTags, tagsOf } from '../tags/tag.service.ts';
import {
  deleteImageRow,
  findImageOfAccount,
  findVisibleImage,
  type ImageRow,
  listVisibleImages,
  updateImageRow,
} from './image.repository.ts';
import { type Image, PUBLIC_IMAGE_PREFIX, type UpdateImage } from './image.schema.ts';
import { deleteImageBlobs } from './image-files.ts';
import { imageKind } from './image-kind.ts';

/** An image as the API shows it, with its tags (a new image, or a public one, has none). */
export function imageRowToImage(row: ImageRow, tags: string[] = []): Image {
  return {
    id: row.id,
    label: row.label,
    created: row.created,
    updated: row.updated,
    created_by: row.created_by,
    deprecated: Boolean(row.deprecated),
    description: row.description ?? '',
    is_public: Boolean(row.is_public),
    size: row.size,
    type: row.type as Image['type'],
    expiry: row.expiry,
    eol: row.eol,
    vendor: row.vendor,
    status: row.status as Image['status'],
    regions: row.region === null ? [] : [{ region: row.region, status: REGION_STATUS[row.status as Image['status']] }],
    total_size: row.size,
    tags,
    is_shared: false,
    capabilities: [],
    image_sharing: row.is_public
      ? null
      : { shared_with: { sharegroup_count: 0, sharegroup_list_url: `/images/${row.id}/sharegroups` }, shared_by: null },
  };
}

/** A new private image with the tags its create or upload asked for, as the API shows it. */
export async function tagNewImage(
  db: Kysely<Database>,
  ctx: Context,
  principal: Principal,
  row: ImageRow,
  tags: readonly string[] | undefined,
): Promise<Image> {
  if (!tags?.length) return imageRowToImage(row);
  await setTags(db, principal.accountId, 'image', row.num, tags, row.created, ctx.config.limitTags, { fresh: true });
  return imageRowToImage(row, (await tagsOf(db, principal.accountId, 'image', [row.num])).get(row.num));
}

const REGION_STATUS: Record<Image['status'], Image['regions'][number]['status']> = {
  creating: 'creating',
  pending_upload: 'pending',
  available: 'available',
};

/** An image as the entity of its events; the numeric part of `private/<num>` is the entity id. */
export function imageEntityOf(row: ImageRow): EntityRef {
  return { id: row.num, type: 'image', label: row.label, url: `/v4/images/${row.id}` };
}

/** The vendor of the image a disk was deployed from: the catalog's for public images, the account's own otherwise. */
export async function vendorOfSourceImage(
  db: Kysely<Database>,
  ctx: Context,
  accountId: number,
  imageId: string | null,
): Promise<string | null> {
  if (imageId === null) return null;
  if (imageId.startsWith(PUBLIC_IMAGE_PREFIX)) return ctx.catalog.image(imageId)?.vendor ?? null;
  return (await findImageOfAccount(db, accountId, imageId))?.vendor ?? null;
}

/**
 * Starts timed work on an image (capture, upload processing) in the caller's transaction: its
 * event is recorded as scheduled and follows the operation to finished.
 */
export async function scheduleImageOperation(
  db: Kysely<Database>,
  ctx: Context,
  actor: EventActor,
  spec: { kind: string; image: ImageRow; event: EventSpec; payload?: Record<string, number>; dataMb?: number },
): Promise<void> {
  const event = await recordEvent(db, ctx, actor, { ...spec.event, status: 'scheduled' });
  await scheduleOperation(db, ctx, {
    kind: spec.kind,
    accountId: actor.accountId,
    event: { id: event.id, created: event.created, ...(spec.dataMb !== undefined && { dataMb: spec.dataMb }) },
    payload: { ...spec.payload, imageNum: spec.image.num },
  });
}

/** The tags of the account's private images among `rows`, by image number. */
async function tagsOfImages(db: Kysely<Database>, scope: AccountScope | null, rows: readonly ImageRow[]) {
  const nums = rows.filter((r) => r.account_id !== null).map((r) => r.num);
  return scope ? tagsOf(db, scope.accountId, 'image', nums) : new Map<number, string[]>();
}

/** Public images, plus the caller's private ones when the request carries a token (scope non-null). */
export async function getImages(ctx: Context, scope: AccountScope | null, request: PageRequest) {
  const page = await listVisibleImages(ctx.db, scope, request);
  const tags = await tagsOfImages(ctx.db, scope, page.data);
  return mapPage(page, (row) => imageRowToImage(row, tags.get(row.num)));
}

/** Another account's private image is reported missing, never forbidden. */
export async function getImage(ctx: Context, scope: AccountScope | null, id: string): Promise<Image> {
  const row = await findVisibleImage(ctx.db, scope, id);
  if (!row) throw fail.notFound();
  return imageRowToImage(row, (await tagsOfImages(ctx.db, scope, [row])).get(row.num));
}

/**
 * A private image the caller may change: 404 when it cannot see it at all, 403 for a public image
 * or for a restricted user holding only read_only on it.
 */
async function writableImage(db: Kysely<Database>, scope: AccountScope, id: string): Promise<ImageRow> {
  const visible = await findVisibleImage(db, scope, id);
  if (!visible) throw fail.notFound();
  return entityFor(db, imageKind, scope, visible.num, 'read_write', {
    what: 'the image',
    missing: () => fail.notFound(),
  });
}

export async function updateImage(ctx: Context, principal: Principal, id: string, body: UpdateImage): Promise<Image> {
  return inTransaction(ctx.db, async (trx) => {
    const current = await writableImage(trx, scopeOf(principal), id);
    if (body.status !== undefined && body.status !== current.status) {
      throw fail.badRequest(`status is set by the service (this image is ${current.status}) and cannot be changed`, 'status');
    }
    const now = toTimestamp(ctx.clock.nowMs());
    const retagged =
      body.tags !== undefined &&
      (await retag(trx, principal.restricted, principal.accountId, 'image', current.num, body.tags, now, ctx.config.limitTags));
    const tags = (await tagsOf(trx, principal.accountId, 'image', [current.num])).get(current.num) ?? [];
    const changes = {
      ...(body.label !== undefined ? { label: body.label } : {}),
      ...(body.description !== undefined ? { description: body.description || null } : {}),
    };
    if (Object.keys(changes).length === 0 && !retagged) return imageRowToImage(current, tags);
    const row = await updateImageRow(trx, current.num, { ...changes, updated: now });
    if (!row) throw fail.notFound();
    await recordEvent(trx, ctx, actorOf(principal), { action: 'image_update', entity: imageEntityOf(row) });
    return imageRowToImage(row, tags);
  });
}

/** Deletes the image, any upload still waiting for it and its data; cannot be undone. */
export async function deleteImage(ctx: Context, principal: Principal, id: string): Promise<void> {
  const row = await inTransaction(ctx.db, async (trx) => {
    const current = await writableImage(trx, scopeOf(principal), id);
    await deleteImageRow(trx, current.num, current.id);
    await revokeEntityGrants(trx, principal.accountId, 'image', current.num);
    await removeTags(trx, principal.accountId, 'image', current.num);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'image_delete', entity: imageEntityOf(current) });
    return current;
  });
  await removeImageData(ctx, row.blob_key);
}

/** Removes an image's blob once its row is gone; a failure leaves an orphan to log, not an error to return. */
export async function removeImageData(ctx: Context, blobKey: string | null): Promise<void> {
  if (blobKey === null) return;
  await deleteImageBlobs(ctx.blobs, blobKey).catch((err: unknown) =>
    ctx.log.error({ err, blobKey }, 'images: removing image data failed'),
  );
}
