import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

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

/** Whether the process a build lock names is still there (a lock being written counts as held). */
function lockHeld(lock: string): boolean {
  try {
    const pid = Number(fs.readFileSync(lock, 'utf8'));
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - fs.statSync(lock).mtimeMs < 10_000;
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user holds it; ENOENT: released meanwhile (taken as not held).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Waits until no other build of the same recipe runs into this cache (another process, or this one),
 * then holds it: two builds would cost twice the minutes for the same result. A lock whose process
 * has died is taken over. Returns the release.
 */
async function holdBuildLock(lock: string): Promise<() => void> {
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (lockHeld(lock)) await sleep(500);
      else fs.rmSync(lock, { force: true });
    }
  }
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
  const release = await holdBuildLock(`${dir}.lock`);
  const work = fs.mkdtempSync(path.join(cacheRoot, `cumulo-image-${recipe.name}-build-`));
  try {
    const built = cachedImage(recipe, cacheRoot);
    if (built) return built;
    const out = path.join(work, 'out');
    fs.mkdirSync(out);
    await recipe.build(work, imageIn(out));
    fs.renameSync(out, dir);
    return imageIn(dir);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    release();
  }
}
