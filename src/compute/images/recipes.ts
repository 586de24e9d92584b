import { busybox } from './busybox.ts';
import { debian12 } from './debian12.ts';
import type { ImageRecipe } from './recipe.ts';

/** Every image this server can build, by name. */
export const RECIPES: ReadonlyMap<string, ImageRecipe> = new Map([busybox, debian12].map((r) => [r.name, r]));
