import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { buildImage, type ImageRecipe } from '../../src/compute/images/recipe.ts';
import { tempDir } from '../helpers/app.ts';

/** A recipe that writes its three files after a pause, counting its builds. */
function countingRecipe(name: string): ImageRecipe & { builds: number } {
  const recipe = {
    name,
    inputs: { name },
    builds: 0,
    async build(_work: string, out: { disk: string; kernel: string; initrd: string }) {
      recipe.builds++;
      await new Promise((r) => setTimeout(r, 300));
      for (const file of [out.disk, out.kernel, out.initrd]) fs.writeFileSync(file, `${name} ${path.basename(file)}`);
    },
  };
  return recipe;
}

// Not about the database: one run is enough.
describe('the image cache', () => {
  test('builds of one recipe at the same time make it once; each gets the result', async (t) => {
    const cache = tempDir(t);
    const recipe = countingRecipe('twice');
    const images = await Promise.all([buildImage(recipe, cache), buildImage(recipe, cache), buildImage(recipe, cache)]);
    assert.equal(recipe.builds, 1);
    assert.deepEqual(images[1], images[0]);
    assert.deepEqual(images[2], images[0]);
    assert.equal(fs.readFileSync(images[0].disk, 'utf8'), 'twice disk.img');
    assert.deepEqual(
      fs.readdirSync(cache).filter((f) => f.endsWith('.lock') || f.includes('-build-')),
      [],
      'no lock or work folder left',
    );
  });

  test('a lock left by a process that died is taken over', async (t) => {
    // Where the recipe's build goes, learnt from a build into another cache.
    const name = path.basename(path.dirname((await buildImage(countingRecipe('orphan'), tempDir(t))).disk));
    const cache = tempDir(t);
    const recipe = countingRecipe('orphan');
    // A pid that was just in use and is no more.
    const gone = spawnSync('true').pid as number;
    const lock = path.join(cache, `${name}.lock`);
    fs.writeFileSync(lock, String(gone));
    const image = await buildImage(recipe, cache);
    assert.equal(recipe.builds, 1);
    assert.equal(fs.readFileSync(image.kernel, 'utf8'), 'orphan vmlinuz');
    assert.equal(fs.existsSync(lock), false);
  });
});
