import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import type { SecondaryRef } from '../events/event.service.ts';
import { findVisibleImage } from './image.repository.ts';
import { PRIVATE_IMAGE_PREFIX } from './image.schema.ts';
import { unbuiltImageReason } from './image-files.ts';
import { publicImageFiles } from './public-image-data.ts';

/** What node creation needs to know about the image it deploys. */
export interface DeployableImage {
  id: string;
  size: number;
  vendor: string | null;
  label: string;
}

/**
 * An image as the secondary entity of another object's event (node_create, disk_imagize): a private
 * image by its number (`private/12` is 12), a public one by its text id, as the live service names them.
 */
export function imageSecondary(image: { id: string; label: string }): SecondaryRef {
  const num = image.id.startsWith(PRIVATE_IMAGE_PREFIX) ? Number(image.id.slice(PRIVATE_IMAGE_PREFIX.length)) : Number.NaN;
  return { id: Number.isSafeInteger(num) ? num : image.id, type: 'image', label: image.label, url: `/v4/images/${image.id}` };
}

/**
 * The image a node may be deployed from: a public catalog image, or one of the account's private
 * images (a restricted user needs a grant on it) whose data is `available`. With real nodes
 * (ctx.compute), a public image must also have been built on this server. Anything else is a 400
 * on the `image` field; another account's image reads as unknown, never as forbidden.
 * `db` may be a transaction.
 */
export async function findDeployableImage(
  db: Kysely<Database>,
  ctx: Context,
  scope: AccountScope,
  imageId: string,
): Promise<DeployableImage> {
  const row = await findVisibleImage(db, scope, imageId);
  if (!row) throw fail.badRequest(`Image ${imageId} does not exist or is not available to you`, 'image');
  if (row.status !== 'available') {
    throw fail.badRequest(`Image ${imageId} is ${row.status}: only available images can be deployed`, 'image');
  }
  if (ctx.compute !== null && row.account_id === null) {
    const recipe = ctx.catalog.image(row.id)?.recipe;
    const built = recipe !== undefined && (await publicImageFiles(ctx.blobs, recipe)) !== null;
    const reason = unbuiltImageReason(row.id, recipe, built);
    if (reason) throw fail.badRequest(reason, 'image');
  }
  return { id: row.id, size: row.size, vendor: row.vendor, label: row.label };
}

/**
 * Refuses (a 400 on `filesystem`) a disk the image does not deploy onto. Onto ext3 or ext4 the
 * deploy writes its settings (root password, keys, network) into a bare ext filesystem; a raw disk,
 * as on the live service, takes any image's data as it is (a whole disk with its partitions, a
 * filesystem, anything uploaded), without settings; swap and initrd disks take no image.
 */
export function assertDeploysOnto(filesystem: string): void {
  if (filesystem === 'ext3' || filesystem === 'ext4' || filesystem === 'raw') return;
  throw fail.badRequest('An image deploys onto an ext3, ext4 or raw disk', 'filesystem');
}
