import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { holdLockFile } from '../../lock-file.ts';

/** A bootable image as three files: the ext4 root filesystem and the kernel and initrd to boot it with. */
export type BootImage = { disk: string; kernel: string; initrd: string };

/** How one image is made from Debian's packages. */
export interface ImageRecipe {
  /** What `cumulo images build` and the catalog's `recipe` field call it. */
  readonly name: string;
  /** Everything the result depends on (suite, packages, files laid in); a change makes a new build. */
  readonly inputs: unknown;
  /** Builds the image into `out`'s three files, using `work` (empty, removed afterwards) for anything else. */
  build(work: string, out: BootImage): Promise<void>;
}

/** Where built images are kept between runs (tests and `cumulo images build` share it). */
export const DEFAULT_IMAGE_CACHE = path.join(os.tmpdir(), 'cumulo-compute-cache');

function recipeHash(recipe: ImageRecipe): string {
  return createHash('sha256')
    .update(JSON.stringify([recipe.name, recipe.inputs]))
    .digest('hex')
    .slice(0, 16);
}

function imageIn(dir: string): BootImage {
  return { disk: path.join(dir, 'disk.img'), kernel: path.join(dir, 'vmlinuz'), initrd: path.join(dir, 'initrd.img') };
}

function cacheDir(recipe: ImageRecipe, cacheRoot: string): string {
  return path.join(cacheRoot, `cumulo-image-${recipe.name}-${recipeHash(recipe)}`);
}

/** The cached build of `recipe` under `cacheRoot`, or undefined when it has not been built yet. */
function cachedImage(recipe: ImageRecipe, cacheRoot: string = DEFAULT_IMAGE_CACHE): BootImage | undefined {
  const dir = cacheDir(recipe, cacheRoot);
  return fs.existsSync(dir) ? imageIn(dir) : undefined;
}

/**
 * The image `recipe` makes, built under `cacheRoot` or found there from an earlier build of the same
 * recipe. The result appears whole or not at all: it is built aside and renamed into place. A build
 * of the same recipe under way elsewhere is waited for, and its result taken.
 */
export async function buildImage(recipe: ImageRecipe, cacheRoot: string = DEFAULT_IMAGE_CACHE): Promise<BootImage> {
  const cached = cachedImage(recipe, cacheRoot);
  if (cached) return cached;
  const dir = cacheDir(recipe, cacheRoot);
  fs.mkdirSync(cacheRoot, { recursive: true });
  // Two builds of one recipe would cost twice the minutes for the same result: one waits for the other.
  const release = await holdLockFile(`${dir}.lock`, 500);
  try {
    const built = cachedImage(recipe, cacheRoot);
    if (built) return built;
    const work = fs.mkdtempSync(path.join(cacheRoot, `cumulo-image-${recipe.name}-build-`));
    try {
      const out = path.join(work, 'out');
      fs.mkdirSync(out);
      await recipe.build(work, imageIn(out));
      try {
        fs.renameSync(out, dir);
      } catch (error) {
        // Another process finished the same build first (its lock was taken over): its result is as good.
        if (!fs.existsSync(dir)) throw error;
      }
      return imageIn(dir);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  } finally {
    release();
  }
}
