import type { BlobStore } from '../../blob/blob-store.ts';
import type { ImageFiles } from '../../compute/driver.ts';
import type { BootImage } from '../../compute/images/recipe.ts';

/** The blob store's top-level folder of built public images (kept by an operator's reset, like the software). */
export const PUBLIC_IMAGE_FOLDER = 'public';

/** Where a recipe's built files live in the blob store. */
export function publicImageKeys(recipe: string): BootImage {
  const dir = `${PUBLIC_IMAGE_FOLDER}/${recipe}`;
  return { disk: `${dir}/disk.img`, kernel: `${dir}/vmlinuz`, initrd: `${dir}/initrd.img` };
}

/** Stores a built image under its recipe's keys; the disk last, so a half-stored image does not read as built. */
export async function storePublicImage(blobs: BlobStore, recipe: string, image: BootImage): Promise<void> {
  const keys = publicImageKeys(recipe);
  for (const part of ['kernel', 'initrd', 'disk'] as const) await blobs.putFile(keys[part], image[part]);
}

/** The recipe's built files as local paths; null when it has not been built on this server. */
export async function publicImageFiles(blobs: BlobStore, recipe: string): Promise<ImageFiles | null> {
  const keys = publicImageKeys(recipe);
  const [disk, kernel, initrd] = await Promise.all([keys.disk, keys.kernel, keys.initrd].map((key) => blobs.localPath(key)));
  if (!disk || !kernel || !initrd) return null;
  return { disk, format: 'raw', kernel, initrd };
}
