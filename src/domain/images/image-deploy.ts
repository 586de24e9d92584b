import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import { findVisibleImage } from './image.repository.ts';

/** What node creation needs to know about the image it deploys. */
export interface DeployableImage {
  id: string;
  size: number;
  vendor: string | null;
  label: string;
}

/**
 * The image a node may be deployed from: a public catalog image, or one of the account's private
 * images (a restricted user needs a grant on it) whose data is `available`. Anything else is a 400
 * on the `image` field; another account's image reads as unknown, never as forbidden.
 * `db` may be a transaction; `ctx` is taken for symmetry with the other services.
 */
export async function findDeployableImage(
  db: Kysely<Database>,
  _ctx: Context,
  scope: AccountScope,
  imageId: string,
): Promise<DeployableImage> {
  const row = await findVisibleImage(db, scope, imageId);
  if (!row) throw fail.badRequest(`Image ${imageId} does not exist or is not available to you`, 'image');
  if (row.status !== 'available') {
    throw fail.badRequest(`Image ${imageId} is ${row.status}: only available images can be deployed`, 'image');
  }
  return { id: row.id, size: row.size, vendor: row.vendor, label: row.label };
}
