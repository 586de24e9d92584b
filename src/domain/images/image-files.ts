import type { ImageFiles } from '../../compute/driver.ts';
import type { Context } from '../../context.ts';
import { findPrivateImage } from './image.repository.ts';
import { publicImageFiles } from './public-image-data.ts';

/** `npx cumulo images build <recipe>`, as the refusals name it. */
export function buildCommand(recipe: string): string {
  return `npx cumulo images build ${recipe}`;
}

/**
 * Why a public image cannot be deployed on this server's real nodes, or null when it can: it needs
 * a recipe (a catalog image without one exists for simulated nodes only) and that recipe built here.
 */
export function unbuiltImageReason(imageId: string, recipe: string | undefined, built: boolean): string | null {
  if (recipe === undefined) return `Image ${imageId} cannot run on real nodes: this server has no recipe to build it`;
  if (!built) return `Image ${imageId} is not built on this server; an operator builds it with: ${buildCommand(recipe)}`;
  return null;
}

/**
 * The files a deployable image is made of: a public image's build (its root filesystem, kernel and
 * initrd), or a private image's uploaded data (a gzipped disk). Deploys call it after the API has
 * accepted the image, so what is missing here is an error of the server, not of the request.
 */
export async function imageFiles(ctx: Context, imageId: string): Promise<ImageFiles> {
  const entry = ctx.catalog.image(imageId);
  if (entry) {
    const files = entry.recipe === undefined ? null : await publicImageFiles(ctx.blobs, entry.recipe);
    if (!files) throw new Error(unbuiltImageReason(imageId, entry.recipe, false) ?? `Image ${imageId} has no files`);
    return files;
  }
  const row = await findPrivateImage(ctx.db, imageId);
  const disk = row?.blob_key ? await ctx.blobs.localPath(row.blob_key) : null;
  if (!disk) throw new Error(`Image ${imageId} has no data on this server`);
  return { disk, format: 'gzip' };
}
