import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { busybox } from '../../src/compute/images/busybox.ts';
import { buildImage, DEFAULT_IMAGE_CACHE } from '../../src/compute/images/recipe.ts';
import { installationNetns } from '../../src/compute/qemu/bridge-names.ts';
import { processAlive } from '../../src/processes.ts';
import { PG_URL } from '../helpers/app.ts';
import { type DocBlock, docBlocks } from '../helpers/doc-blocks.ts';
import { killMachinesUnder } from '../helpers/real-nodes.ts';
import { portFree, startLaunchedServer } from '../helpers/server-process.ts';
import { findTool, needs, type SystemTool, systemTool } from '../helpers/system-tools.ts';

/**
 * Cumulo as a new user gets it: the tarball `npm pack` makes, installed in an empty folder far from
 * the repository, with nothing but npm and the machine's own Node.js on PATH. Its commands run there,
 * and so does every block of README.md and docs/ marked runnable (```sh run), each page in a network
 * namespace of its own so that its 127.0.0.1:8080 is its own; ```lang file=<path> blocks of the same
 * page are written into the page's folder first (the examples the runnable blocks run), and `dir=<name>`
 * puts a block's file, or runs its commands, in a folder of that name there. A block inside an HTML
 * comment runs too, unseen by readers: the setup a reader did by hand (a server started in another
 * terminal). The machine's PostgreSQL answers at 127.0.0.1:5432 in the namespace too. `npm install && npm start` in a checkout is .ci/run's to check, not this test's.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const exec = promisify(execFile);
/** What the pages' blocks call, and what runs them. */
const PAGE_TOOLS: readonly SystemTool[] = [
  ...['ip', 'nsenter', 'curl', 'jq', 'openssl', 'pytest-3', 'dig', 'createdb', 'python3'],
  // docs/real-nodes.md: real nodes, in user and bridge networking.
  ...['qemu-system-x86_64', 'mmdebstrap', 'mke2fs', 'debugfs', 'ssh', 'ssh-keygen', 'nft'],
] as const;
/** A page's blocks together, servers started and examples' test runs included. */
const PAGE_TIMEOUT_MS = 240_000;
/** Packing and installing (an npm cache that is empty fetches every dependency), or building busybox. */
const SETUP_TIMEOUT_MS = 300_000;
/** One of the package's commands and its checks. */
const STEP_TIMEOUT_MS = 120_000;
/** The user's PATH: the machine's, without a Node.js or tools installed from npm (as `npm test` adds them). */
const USER_PATH = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((dir) => !/node_modules[\\/](\.bin|node[\\/]bin)$/.test(dir))
  .join(path.delimiter);
/** The environment of the user's commands: no Cumulo settings of the one running the tests. */
const USER_ENV = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CUMULO_|DATABASE_URL$|PORT$|HOST$|LOG_)/.test(k))),
  PATH: USER_PATH,
  NPM_CONFIG_UPDATE_NOTIFIER: 'false',
  NPM_CONFIG_FUND: 'false',
  NPM_CONFIG_AUDIT: 'false',
};
const VITEST_VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', 'vitest', 'package.json'), 'utf8')) as { version: string }
).version;

const runnable = (page: string) =>
  docBlocks(path.join(ROOT, page)).filter((b) => b.attrs.run === true || typeof b.attrs.file === 'string');

describe('a new user with the packed package', () => {
  let work: string;
  let project: string;
  let version: string;
  /** A .curlrc for the pages' commands: a request answered with an error fails its page, naming the status. */
  let curlHome: string;

  before(
    async () => {
      if (process.getuid?.() === 0 && findTool('ip')) await endNamespacesLeft(systemTool('ip'));
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-new-user-'));
      // prepack builds dist/ from src/; prepare builds the console when its sources changed.
      const packed = await exec('npm', ['pack', '--json', '--pack-destination', work], {
        cwd: ROOT,
        env: USER_ENV,
        maxBuffer: 64 << 20,
      });
      const [{ filename, version: packedVersion }] = JSON.parse(packed.stdout) as [{ filename: string; version: string }];
      version = packedVersion;
      curlHome = path.join(work, 'curl');
      fs.mkdirSync(curlHome);
      fs.writeFileSync(path.join(curlHome, '.curlrc'), 'fail\nshow-error\n');
      project = path.join(work, 'project');
      fs.mkdirSync(project);
      fs.writeFileSync(
        path.join(project, 'package.json'),
        `${JSON.stringify({ name: 'my-tool', private: true, type: 'module' })}\n`,
      );
      // What the npm cache holds from the repository's own install is taken from there.
      await exec('npm', ['install', '--prefer-offline', path.join(work, filename), `vitest@${VITEST_VERSION}`], {
        cwd: project,
        env: USER_ENV,
      });
    },
    { timeout: SETUP_TIMEOUT_MS },
  );
  after(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test('holds its build, catalog and console, and no sources', { timeout: STEP_TIMEOUT_MS }, () => {
    const installed = path.join(project, 'node_modules', 'cumulo');
    for (const file of [
      'bin/cumulo.js',
      'dist/start-cumulo.js',
      'dist/start-cumulo.d.ts',
      'catalog/default.json',
      'console/dist/index.html',
    ]) {
      assert.ok(fs.existsSync(path.join(installed, file)), file);
    }
    assert.equal(fs.existsSync(path.join(installed, 'src')), false);
    assert.equal(fs.existsSync(path.join(installed, 'test')), false);
  });

  test('its types: a TypeScript project checks against them, and a wrong use is an error', {
    timeout: STEP_TIMEOUT_MS,
  }, async () => {
    const dir = path.join(project, 'typescript');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'es2024', module: 'nodenext', strict: true, noEmit: true, types: [] } }),
    );
    fs.writeFileSync(
      path.join(dir, 'setup.ts'),
      [
        "import { type RunningCumulo, startCumulo } from 'cumulo';",
        "const cumulo: RunningCumulo = await startCumulo({ env: { CUMULO_TIME_SCALE: '0.01' } });",
        'const url: string = cumulo.url;',
        '// @ts-expect-error the URL is a string',
        'const port: number = cumulo.url;',
        'await cumulo.advanceClock(60).then((clock) => clock.now.toUpperCase());',
        'export { port, url };',
        '',
      ].join('\n'),
    );
    // The repository's TypeScript stands for the one the user's project has.
    await exec(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', dir], { cwd: dir, env: USER_ENV });
  });

  test('npx cumulo: version, serve, a token, a request, the console, stop', { timeout: STEP_TIMEOUT_MS }, async () => {
    assert.equal((await exec('npx', ['cumulo', '--version'], { cwd: project, env: USER_ENV })).stdout.trim(), version);
    const dataDir = path.join(work, 'data');
    const env = { ...USER_ENV, CUMULO_DATA_DIR: dataDir };
    const server = await startLaunchedServer(['npx', 'cumulo', 'serve'], env, { cwd: project, wholeEnv: true });
    try {
      const token = (
        await exec('npx', ['cumulo', 'token', 'create', '--username', 'admin'], { cwd: project, env })
      ).stdout.trim();
      const profile = await fetch(`${server.baseUrl}/v4/profile`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(profile.status, 200);
      assert.equal(((await profile.json()) as { username: string }).username, 'admin');
      const ready = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as { status: string; version: string };
      assert.deepEqual([ready.status, ready.version], ['ready', version]);
      assert.match(await (await fetch(`${server.baseUrl}/`)).text(), /<div id="root">/);
    } finally {
      // Ctrl-C: SIGINT to the terminal's foreground group, npx and the server in it.
      process.kill(-(server.child.pid as number), 'SIGINT');
    }
    await server.exited;
    const port = Number(new URL(server.baseUrl).port);
    for (let waited = 0; !(await portFree(port)); waited += 100) {
      assert.ok(waited < 20_000, `port ${port} still taken 20 s after Ctrl-C:\n${server.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(fs.existsSync(path.join(dataDir, 'cumulo.sqlite')), 'its data is in the data dir it was given');
  });

  test('npx cumulo images build busybox: the build (the cache the tests share, else made) is stored and listed as built', {
    ...needs('mmdebstrap', 'mke2fs', 'debugfs'),
    timeout: SETUP_TIMEOUT_MS,
  }, async (t) => {
    if (process.getuid?.() !== 0) return t.skip('building an image needs root');
    const env = { ...USER_ENV, CUMULO_DATA_DIR: path.join(work, 'images-data') };
    const built = JSON.parse((await exec('npx', ['cumulo', 'images', 'build', 'busybox'], { cwd: project, env })).stdout) as {
      images: string[];
    };
    assert.deepEqual(built.images, ['node/busybox']);
    const listed = JSON.parse((await exec('npx', ['cumulo', 'images'], { cwd: project, env })).stdout) as {
      data: { recipe: string; built: boolean }[];
    };
    assert.deepEqual(
      listed.data.map((i) => [i.recipe, i.built]),
      [
        ['debian12', false],
        ['busybox', true],
      ],
    );
  });

  for (const page of PAGES) {
    const blocks = runnable(page);
    if (!blocks.some((b) => b.attrs.run === true)) continue;
    // The page's own time, and a busybox build before it.
    test(`${page}: its runnable blocks`, { ...needs(...PAGE_TOOLS), timeout: PAGE_TIMEOUT_MS + SETUP_TIMEOUT_MS }, async (t) => {
      if (process.getuid?.() !== 0) return t.skip('a page runs in a network namespace of its own, which needs root');
      // The page's namespace has no way out to Debian's mirror, as a reader's machine has: the images
      // its blocks build are built here first, into the cache the builds share.
      if (blocks.some((b) => b.attrs.run === true && /images build busybox/.test(b.body)))
        await buildImage(busybox, DEFAULT_IMAGE_CACHE);
      await runPage(page, blocks, path.join(project, page.replace(/\W+/g, '-')), { ...USER_ENV, CURL_HOME: curlHome });
    });
  }
});

/**
 * Writes the page's file blocks into `dir` (inside the project, so that its packages resolve), then
 * runs its runnable blocks in order as one bash script there (set -euo pipefail), in a network
 * namespace of its own with only loopback; whatever the script left running in it is ended after.
 */
async function runPage(page: string, blocks: readonly DocBlock[], dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  for (const block of blocks) {
    if (typeof block.attrs.file !== 'string') continue;
    const file = path.join(dir, blockDir(block), block.attrs.file);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, block.body);
  }
  // Each block says where it is and when it starts, in the output shown when the page fails.
  const script = blocks
    .filter((b) => b.attrs.run === true)
    .map((b) => {
      const body = blockDir(b) === '.' ? b.body : `mkdir -p ${blockDir(b)}\n(cd ${blockDir(b)}\n${b.body})\n`;
      return `echo "### ${page}:${b.line} at \${SECONDS} s"\n${body}`;
    })
    .join('\n');
  const ip = systemTool('ip');
  const netns = `cumulo-docs-${process.pid}-${path.basename(dir)}`.slice(0, 60);
  // Output to a file, not a pipe: a server a block leaves running would hold a pipe open to the end.
  const output = path.join(dir, 'page-output.log');
  const outFd = fs.openSync(output, 'w');
  await exec(ip, ['netns', 'add', netns]);
  let postgres: { close(): void } | undefined;
  try {
    await exec(ip, ['-n', netns, 'link', 'set', 'lo', 'up']);
    // An address of the page's own, as a reader's machine has one on its network: bridged nodes are
    // reached from it (a namespace with loopback alone has no source address for them).
    await exec(ip, ['-n', netns, 'address', 'add', '198.51.100.1/32', 'dev', 'lo']);
    postgres = await postgresInto(ip, netns, path.join(dir, 'postgres.sock'));
    // nsenter, not `ip netns exec`: the page keeps the machine's mounts, so that a namespace the page
    // makes (bridge networking's) is seen, and removed, from here.
    const child = spawn(systemTool('nsenter'), [`--net=/run/netns/${netns}`, 'bash', '-euo', 'pipefail', '-c', script], {
      cwd: dir,
      env,
      stdio: ['ignore', outFd, outFd],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), PAGE_TIMEOUT_MS);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(timer);
    assert.equal(
      code,
      0,
      `${page}: a runnable block failed (${signal ?? `exit ${code}`}):\n${fs.readFileSync(output, 'utf8')}${logTails(dir)}`,
    );
  } finally {
    fs.closeSync(outFd);
    // Machines outlive their server, and in bridge networking run in a namespace of their own.
    const dataDir = path.join(dir, 'data');
    await killMachinesUnder(dataDir);
    await endNamespace(ip, netns);
    if ((await namespaces(ip)).includes(installationNetns(dataDir))) await exec(ip, ['netns', 'del', installationNetns(dataDir)]);
    postgres?.close();
  }
}

/** The last lines of the logs a page's blocks wrote (a server's), for a failure's message. */
function logTails(dir: string): string {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log') && f !== 'page-output.log')
    .map((f) => `\n--- the end of ${f}:\n${fs.readFileSync(path.join(dir, f), 'latin1').split('\n').slice(-40).join('\n')}`)
    .join('');
}

/**
 * The machine's PostgreSQL (the tests' one) at 127.0.0.1:5432 inside `netns` too, as the pages that
 * use one expect it: a forwarder in the namespace passes each connection through a Unix socket (which
 * crosses namespaces) to one here, which connects to the real port.
 */
async function postgresInto(ip: string, netns: string, socket: string): Promise<{ close(): void }> {
  const real = new URL(PG_URL);
  const host = net.createServer((conn) => {
    const up = net.connect(Number(real.port || 5432), real.hostname);
    conn.pipe(up).pipe(conn);
    conn.on('error', () => up.destroy());
    up.on('error', () => conn.destroy());
  });
  await new Promise<void>((resolve, reject) => host.once('error', reject).listen(socket, resolve));
  const forwarder = `const net = require('node:net');
net.createServer((conn) => {
  const up = net.connect(${JSON.stringify(socket)});
  conn.pipe(up).pipe(conn);
  conn.on('error', () => up.destroy());
  up.on('error', () => conn.destroy());
}).listen(5432, '127.0.0.1', () => console.log('listening'));`;
  const inside = spawn(ip, ['netns', 'exec', netns, process.execPath, '-e', forwarder], { stdio: ['ignore', 'pipe', 'inherit'] });
  const close = () => {
    inside.kill('SIGKILL');
    host.close();
  };
  const started = await Promise.race([once(inside.stdout, 'data').then(() => true), once(inside, 'exit').then(() => false)]);
  if (!started) {
    close();
    throw new Error(`the PostgreSQL forwarder in ${netns} ended before it listened`);
  }
  return { close };
}

/** The folder, under the page's, that a block's `dir=` names: its files go there, its commands run there. */
function blockDir(block: DocBlock): string {
  const dir = typeof block.attrs.dir === 'string' ? block.attrs.dir : '.';
  assert.match(dir, /^[\w.-]+$/, `${block.page}:${block.line}: dir= names a folder of the page's`);
  return dir;
}

/** The names of the machine's network namespaces (`ip netns list` adds an id to some). */
async function namespaces(ip: string): Promise<string[]> {
  return (await exec(ip, ['netns', 'list'])).stdout.split('\n').map((line) => line.split(' ')[0] ?? '');
}

/** The pages' namespaces a run of this file that was killed left (each is named with its process's pid). */
async function endNamespacesLeft(ip: string): Promise<void> {
  for (const name of await namespaces(ip)) {
    const pid = /^cumulo-docs-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) await endNamespace(ip, name);
  }
}

/** Ends every process still in `netns` (a server a block left running), then the namespace. */
async function endNamespace(ip: string, netns: string): Promise<void> {
  const pids = async () => (await exec(ip, ['netns', 'pids', netns])).stdout.split('\n').filter(Boolean).map(Number);
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    for (const pid of await pids()) {
      try {
        process.kill(pid, signal);
      } catch {}
    }
    // A server closes gracefully in well under a second; one that takes 5 s is killed.
    for (let waited = 0; waited < 5000 && (await pids()).length > 0; waited += 100) await new Promise((r) => setTimeout(r, 100));
  }
  await exec(ip, ['netns', 'del', netns]);
}
