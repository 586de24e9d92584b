import type { BlobStore } from '../../blob/blob-store.ts';
import type { ImageFiles } from '../../compute/driver.ts';
import type { Context } from '../../context.ts';
import { findPrivateImage } from './image.repository.ts';
import { publicImageFiles } from './public-image-data.ts';

const MIB = 1024 * 1024;

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

/** The blob keys of the kernel and initrd a private image boots with (a captured disk's), beside its data. */
export function imageBootKeys(blobKey: string): { kernel: string; initrd: string } {
  return { kernel: `${blobKey}.vmlinuz`, initrd: `${blobKey}.initrd` };
}

/** Where a captured image's data goes (known before the capture, so a capture done again writes the same keys). */
export function capturedImageKey(accountId: number, imageNum: number): string {
  return `images/${accountId}/${imageNum}-captured.img.gz`;
}

/** Removes a private image's data and the boot files beside it; missing ones are not an error. */
export async function deleteImageBlobs(blobs: BlobStore, blobKey: string): Promise<void> {
  const boot = imageBootKeys(blobKey);
  for (const key of [blobKey, boot.kernel, boot.initrd]) await blobs.delete(key);
}

/**
 * The files a deployable image is made of: a public image's build (its root filesystem, kernel and
 * initrd), or a private image's data (a gzipped disk, uploaded or captured; a captured one with the
 * kernel and initrd its disk booted with). Deploys call it after the API has
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
  if (!disk || !row?.blob_key) throw new Error(`Image ${imageId} has no data on this server`);
  const boot = imageBootKeys(row.blob_key);
  const [kernel, initrd] = await Promise.all([ctx.blobs.localPath(boot.kernel), ctx.blobs.localPath(boot.initrd)]);
  // What its data was measured to unpack to (an upload's check, a capture's) and, for an upload, what
  // uploads may unpack to: a blob that would unpack further than it was checked for stops there.
  const uploaded = row.blob_key !== capturedImageKey(row.account_id ?? 0, row.num);
  const maxUnpackedBytes = Math.min(row.size * MIB, uploaded ? ctx.config.imageUnpackedMaxBytes : Number.POSITIVE_INFINITY);
  return { disk, format: 'gzip', maxUnpackedBytes, ...(kernel && initrd && { kernel, initrd }) };
}
