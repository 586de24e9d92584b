import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tempDir } from '../helpers/app.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HELPER = pathToFileURL(path.join(ROOT, 'test', 'helpers', 'system-tools.ts')).href;

/** `npm test`'s runner on one test file that needs ssh-keygen, with only `dir` on PATH. */
function runNeedingSshKeygen(dir: string, ci: string) {
  const file = path.join(dir, 'needs-ssh-keygen.test.ts');
  fs.writeFileSync(
    file,
    [
      `import { test } from 'node:test';`,
      `import { needs, systemTool } from '${HELPER}';`,
      `test('reads a key with ssh-keygen', needs('ssh-keygen'), () => { systemTool('ssh-keygen'); });`,
    ].join('\n'),
  );
  // Without the variable that marks this process as a test file, the runner starts its own run.
  const { NODE_TEST_CONTEXT: _, ...outside } = process.env;
  const env = { ...outside, PATH: dir, CI: ci };
  const res = spawnSync(process.execPath, ['scripts/test.ts', file], { cwd: ROOT, env, encoding: 'utf8' });
  const lines = res.stdout.trimEnd().split('\n');
  return { status: res.status, output: res.stdout + res.stderr, last: lines.at(-1) ?? '' };
}

// Not about the database: one run is enough.
describe('tests that need a system tool', () => {
  test('without it they skip naming the package, and the run ends with the one install line', (t) => {
    const dir = tempDir(t);
    const run = runNeedingSshKeygen(dir, '');
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /# ssh-keygen not found: apt-get install -y openssh-client/);
    assert.match(
      run.last,
      /^Tests that need [^;]*\bssh-keygen\b[^;]* were skipped; install them with: apt-get install -y .*\bopenssh-client\b/,
    );
  });

  test('with CI set they fail instead, naming the package', (t) => {
    const dir = tempDir(t);
    const run = runNeedingSshKeygen(dir, '1');
    assert.equal(run.status, 1, run.output);
    assert.match(run.output, /ssh-keygen not found: install it with apt-get install -y openssh-client/);
    assert.match(
      run.last,
      /^Tests that need [^;]*\bssh-keygen\b[^;]* failed \(CI is set\); install them with: apt-get install -y /,
    );
  });

  test('with it on PATH they run, and the last line does not ask for it', (t) => {
    const dir = tempDir(t);
    fs.writeFileSync(path.join(dir, 'ssh-keygen'), '#!/bin/sh\n', { mode: 0o755 });
    const run = runNeedingSshKeygen(dir, '1');
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /✔ reads a key with ssh-keygen/);
    // Other tools may still be missing (ssh comes in the same package); ssh-keygen is not among them.
    assert.doesNotMatch(run.last.split(';')[0] ?? '', /\bssh-keygen\b/);
  });
});
