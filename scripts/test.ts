import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { inCi, installCommand, missingTools } from '../test/helpers/system-tools.ts';

/** Runs every test file under test/ (each one covers both databases). Extra args go to node --test. */
function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** Folders whose files take a minute or more each (guests booting, a browser driving pages, a package packed and installed). */
const LONG = ['test/compute/', 'test/console/', 'test/package/'];
/** The slowest of them (a minute and more on two cores), started before the others of their kind. */
const SLOWEST = [
  'test/compute/images-build.test.ts',
  'test/compute/real-nodes.test.ts',
  'test/compute/real-nodes-debian.test.ts',
  'test/console/nodes.test.ts',
  'test/console/node-parts.test.ts',
  'test/package/new-user.test.ts',
];
/** The other files run this many to a process (see batches). */
const FILES_PER_PROCESS = 10;

const isLong = (file: string) => LONG.some((dir) => file.startsWith(dir));
/** Whether the file's nodes use bridge networking, which adds and removes links and addresses on the host. */
const changesHostNetwork = (file: string) => file.startsWith('test/compute/') && path.basename(file).includes('bridge');

/**
 * The long files, in the order they start: those that change the host's network, then the other
 * real-node files, then the browser's, the slowest of each kind first (started last, a long file
 * would keep the suite running alone at its end). Chromium fails a request in flight when the host's
 * addresses change (net::ERR_NETWORK_CHANGED): the network files, first, are done by the time the
 * browser files start, after every other real-node file.
 */
function longFirst(all: string[]): string[] {
  const kind = (f: string) => (changesHostNetwork(f) ? 0 : f.startsWith('test/compute/') ? 1 : 2);
  const slowness = (f: string) => (SLOWEST.includes(f) ? SLOWEST.indexOf(f) : SLOWEST.length);
  return all.filter(isLong).sort((a, b) => kind(a) - kind(b) || slowness(a) - slowness(b) || a.localeCompare(b));
}

/**
 * The short files, about ten to a process: each file alone would pay a process's start (loading the
 * service's modules, compiling its schemas: over a second of CPU) for a few seconds of tests, and on
 * two cores that was a sixth of the suite. A batch imports its files in order; their tests run one
 * file after another, as the runner runs one file's tests, and report under their own names and
 * lines. Files are dealt out in turn, so that the slow ones of a folder land in different batches.
 * A file that would disturb its neighbours (top-level hooks, a changed environment) belongs in a
 * process of its own: none does today.
 */
function batches(files: string[]): string[][] {
  const count = Math.ceil(files.length / FILES_PER_PROCESS);
  return Array.from({ length: count }, (_, i) => files.filter((_, j) => j % count === i));
}

/**
 * One module per process, in `dir`, named in the order the processes are to start: the test runner
 * starts its files in the order of their names, whatever order it is given them in.
 */
function processModules(groups: string[][], dir: string): string[] {
  const width = String(groups.length).length;
  return groups.map((group, i) => {
    const what = group.length === 1 ? path.basename(group[0] as string, '.test.ts') : `${group.length}-files`;
    const module = path.join(dir, `${String(i + 1).padStart(width, '0')}-${what}.test.mjs`);
    fs.writeFileSync(module, group.map((f) => `import ${JSON.stringify(pathToFileURL(path.resolve(f)).href)};\n`).join(''));
    return module;
  });
}

const args = process.argv.slice(2);
const whole = !args.some((a) => !a.startsWith('-'));
const batchDir = whole ? fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-test-processes-')) : undefined;
const all = whole ? testFiles('test').sort() : [];
// The files that change the host's network take turns anyway (their nodes get the same addresses: the
// bridge lock of test/helpers/real-nodes.ts), so they run one after another in one process, which
// holds one place of the run, not one each.
const networkFiles = longFirst(all).filter(changesHostNetwork);
const groups = [
  ...(networkFiles.length > 0 ? [networkFiles] : []),
  ...longFirst(all)
    .filter((f) => !changesHostNetwork(f))
    .map((f) => [f]),
  ...batches(all.filter((f) => !isLong(f))),
];
const files = batchDir ? processModules(groups, batchDir) : [];
// Each test file is a process that loads most of the service, and many start `cumulo` processes:
// compiled modules cached on disk make every start after the first faster.
const env = {
  ...process.env,
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'node-compile-cache'),
};
// Three files at a time on two cores: many tests wait (on a guest booting, a server starting, a page
// following the events feed), yet the suite is bound by the CPU, and a fourth only made every file's
// waits longer (browser and guest timeouts came closer) without ending the suite sooner.
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=3', ...args, ...files], { stdio: 'inherit', env });
if (batchDir) fs.rmSync(batchDir, { recursive: true, force: true });
// The tests that need a missing tool skip (or, under CI, fail) with a line of their own, lost among
// hundreds: the last line says it once.
const missing = missingTools();
if (missing.length > 0) {
  const outcome = inCi() ? 'failed (CI is set)' : 'were skipped';
  process.stdout.write(`\nTests that need ${missing.join(', ')} ${outcome}; install them with: ${installCommand(missing)}\n`);
}
process.exit(result.status ?? 1);
