import type { Context } from '../../context.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import { findVisibleImage, type ImageRow, listVisibleImages } from './image.repository.ts';
import type { Image } from './image.schema.ts';

export function imageRowToImage(row: ImageRow): Image {
  return {
    id: row.id,
    label: row.label,
    created: row.created,
    updated: row.updated,
    created_by: row.created_by,
    deprecated: Boolean(row.deprecated),
    description: row.description,
    is_public: Boolean(row.is_public),
    size: row.size,
    type: row.type as Image['type'],
    expiry: row.expiry,
    eol: row.eol,
    vendor: row.vendor,
    status: row.status as Image['status'],
  };
}

/** Public images, plus the caller's private ones when the request carries a token (scope non-null). */
export async function getImages(ctx: Context, scope: AccountScope | null, request: PageRequest) {
  return mapPage(await listVisibleImages(ctx.db, scope, request), imageRowToImage);
}

/** Another account's private image is reported missing, never forbidden. */
export async function getImage(ctx: Context, scope: AccountScope | null, id: string): Promise<Image> {
  const row = await findVisibleImage(ctx.db, scope, id);
  if (!row) throw fail.notFound('Image not found');
  return imageRowToImage(row);
}
