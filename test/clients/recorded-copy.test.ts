import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { filesOf, RECORDED_DIR, SHARED_CLIENTS_DIR } from '../../scripts/client-recordings.ts';

// A copy of files, with no database in it: one run is enough.
describe('the kept client recordings', () => {
  const sharedHere = fs.existsSync(SHARED_CLIENTS_DIR);
  test('are what scripts/client-recordings.ts copies from ../shared/clients now', {
    skip: sharedHere ? false : `${SHARED_CLIENTS_DIR} is not beside the repository; the kept copy is used as it is`,
  }, () => {
    const shared = filesOf(SHARED_CLIENTS_DIR);
    const kept = filesOf(RECORDED_DIR);
    const fix = 'run node scripts/client-recordings.ts';
    assert.deepEqual([...kept.keys()], [...shared.keys()], `${RECORDED_DIR} holds other files than the shared folder: ${fix}`);
    for (const [name, text] of shared)
      assert.ok(kept.get(name) === text, `${name} is out of date with the shared folder: ${fix}`);
  });
});
