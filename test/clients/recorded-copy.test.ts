import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { filesOf, SHARED_COPIES } from '../../scripts/shared-copies.ts';

// A copy of files, with no database in it: one run is enough.
describe('the kept copies of ../shared', () => {
  for (const { shared, kept, text } of SHARED_COPIES) {
    test(`${kept} is what scripts/shared-copies.ts copies from ${shared} now`, {
      skip: fs.existsSync(shared) ? false : `${shared} is not beside the repository; the kept copy is used as it is`,
    }, () => {
      const sharedFiles = filesOf(shared);
      const keptFiles = filesOf(kept);
      const fix = 'run node scripts/shared-copies.ts';
      assert.deepEqual(
        [...keptFiles.keys()],
        [...sharedFiles.keys()],
        `${kept} holds other files than the shared folder: ${fix}`,
      );
      for (const [name, sharedText] of sharedFiles)
        assert.ok(keptFiles.get(name) === text(sharedText), `${name} is out of date with the shared folder: ${fix}`);
    });
  }
});
