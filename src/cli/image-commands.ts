import fs from 'node:fs';
import { buildImage, DEFAULT_IMAGE_CACHE } from '../compute/images/recipe.ts';
import { RECIPES } from '../compute/images/recipes.ts';
import type { Context } from '../context.ts';
import { publicImageFiles, storePublicImage } from '../domain/images/public-image-data.ts';
import { fail } from '../errors.ts';
import { json } from './admin-state-commands.ts';
import type { Command } from './main.ts';
import { text, tool, type Values } from './tool.ts';

/** The catalog's public images that real nodes can run, with whether each is built on this server. */
export async function runImages(ctx: Context): Promise<string> {
  const data = [];
  for (const image of ctx.catalog.data.images) {
    if (image.recipe === undefined) continue;
    const built = (await publicImageFiles(ctx.blobs, image.recipe)) !== null;
    data.push({ id: image.id, label: image.label, recipe: image.recipe, built });
  }
  return json({ data });
}

/** Builds a recipe (or finds its build in the cache) and stores it as the public images that name it. */
export async function runImagesBuild(ctx: Context, values: Values): Promise<string> {
  const name = text(values, 'recipe') ?? '';
  const recipe = RECIPES.get(name);
  if (!recipe) throw fail.badRequest(`No recipe ${JSON.stringify(name)}; known: ${[...RECIPES.keys()].join(', ')}`, 'recipe');
  // mmdebstrap installs as root to keep the files' owners.
  if (process.getuid?.() !== 0)
    throw fail.badRequest('Building an image needs root (mmdebstrap installs Debian as root)', 'recipe');
  const started = Date.now();
  ctx.log.info({ recipe: name }, 'images: building (a minute or so the first time, then from the cache)');
  const image = await buildImage(recipe, text(values, 'cache') ?? DEFAULT_IMAGE_CACHE);
  await storePublicImage(ctx.blobs, name, image);
  return json({
    recipe: name,
    images: ctx.catalog.data.images.filter((i) => i.recipe === name).map((i) => i.id),
    bytes: { disk: fs.statSync(image.disk).size, kernel: fs.statSync(image.kernel).size, initrd: fs.statSync(image.initrd).size },
    seconds: Math.round((Date.now() - started) / 1000),
  });
}

export const IMAGE_COMMANDS: Record<string, Command> = {
  images: {
    summary: 'The public images real nodes can run, and whether each is built here (JSON)',
    usage: 'images',
    options: {},
    run: tool(runImages),
  },
  'images build': {
    summary: 'Build a public image from Debian packages and store it (root; needs mmdebstrap and e2fsprogs)',
    usage: 'images build <recipe>',
    options: { cache: { type: 'string', description: `where builds are kept between runs (default ${DEFAULT_IMAGE_CACHE})` } },
    positionals: ['recipe'],
    run: tool(runImagesBuild),
  },
};
