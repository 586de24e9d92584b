import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUNDLED_NODE = path.join(ROOT, 'node_modules', '.bin', 'node');

/** PATH without any Node installed from npm: what a machine has before `npm install`, whatever its Node. */
function machinePath(): string {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => !/node_modules[\\/](node[\\/]bin|\.bin)$/.test(dir))
    .join(path.delimiter);
}

const npmMissing = spawnSync('npm', ['--version'], { env: { ...process.env, PATH: machinePath() } }).status !== 0;

// Not about the database: one run is enough.
describe('the Node.js that npm install brings', () => {
  test('package.json depends on Node.js 24 and npm install put it in node_modules/.bin', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.match(pkg.dependencies.node, /^\^24\./);
    const { stdout } = await run(BUNDLED_NODE, ['--version']);
    assert.match(stdout, /^v24\./);
  });

  test("npm scripts and npx run it whatever Node.js is first on the machine's PATH", {
    skip: npmMissing ? 'npm is not on PATH' : false,
  }, async () => {
    const env = { ...process.env, PATH: machinePath() };
    // npm exec puts node_modules/.bin first on PATH, as npm start and npm test do.
    const exec = await run('npm', ['exec', '--', 'node', '-p', 'process.version'], { cwd: ROOT, env });
    assert.match(exec.stdout, /^v24\./);
    // The `cumulo` command is TypeScript: it runs only on a Node.js that strips types (24).
    const help = await run('npx', ['cumulo', '--help'], { cwd: ROOT, env });
    assert.match(help.stdout, /^Usage: cumulo <command>/);
    const version = await run('npx', ['cumulo', '--version'], { cwd: ROOT, env });
    const packageVersion = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
    assert.equal(version.stdout, `${packageVersion}\n`, 'the version package.json gives');
  });
});
