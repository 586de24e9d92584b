import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { holdLockFile } from '../../src/lock-file.ts';
import { startTicks } from '../../src/processes.ts';
import { tempDir } from '../helpers/app.ts';

// Not about the database: one run is enough.
describe('a lock file between processes', () => {
  test('a second holder waits until the first releases', async (t) => {
    const lock = path.join(tempDir(t), 'x.lock');
    const releaseFirst = await holdLockFile(lock, 20);
    let second = false;
    const waiting = holdLockFile(lock, 20).then((release) => {
      second = true;
      return release;
    });
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(second, false, 'still held');
    releaseFirst();
    (await waiting)();
    assert.equal(second, true);
    assert.equal(fs.existsSync(lock), false);
  });

  test("a lock whose pid a later process has taken is taken over: its start time is not the holder's", async (t) => {
    const lock = path.join(tempDir(t), 'x.lock');
    // This process's pid, but another start time: the holder was an earlier process of that pid.
    fs.writeFileSync(lock, `${process.pid} 1 earlier`);
    const release = await holdLockFile(lock, 20);
    assert.match(fs.readFileSync(lock, 'utf8'), new RegExp(`^${process.pid} ${startTicks(process.pid)} `));
    release();
    assert.equal(fs.existsSync(lock), false);
  });

  test("a lock whose process has ended is taken over, and the old holder's release leaves the new one's", async (t) => {
    const lock = path.join(tempDir(t), 'x.lock');
    const gone = spawnSync('true').pid as number;
    fs.writeFileSync(lock, `${gone} someone`);
    const release = await holdLockFile(lock, 20);
    assert.match(fs.readFileSync(lock, 'utf8'), new RegExp(`^${process.pid} `));
    // A holder that believes it still holds the lock (taken over meanwhile) releases nothing of another's.
    const stale = await holdLockFile(path.join(path.dirname(lock), 'other.lock'), 20);
    fs.renameSync(path.join(path.dirname(lock), 'other.lock'), path.join(path.dirname(lock), 'kept'));
    fs.copyFileSync(lock, path.join(path.dirname(lock), 'other.lock'));
    stale();
    assert.ok(fs.existsSync(path.join(path.dirname(lock), 'other.lock')), "another holder's lock is not removed");
    release();
    assert.equal(fs.existsSync(lock), false);
    assert.deepEqual(fs.readdirSync(path.dirname(lock)).sort(), ['kept', 'other.lock'], 'nothing moved aside is left');
  });
});
