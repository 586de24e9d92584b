import fs from 'node:fs';
import path from 'node:path';
import { cases } from './cases.ts';
import { load, median } from './measure.ts';
import { pin, type ServerProcess, startProcess, stop } from './processes.ts';

/**
 * One change measured alone: the server of another checkout (`before`, e.g. a `git worktree` of the
 * previous commit, with its own node_modules) against this one's, on the same seeded data, in
 * interleaved rounds (before, after, after, before, ...), both pinned to core 0 and the load to
 * core 1 as `npm run bench` pins them. Rounds alternate so that a machine that speeds up or slows
 * down meanwhile weighs on both alike; the medians are compared.
 *
 *   node bench/compare.ts <case> <before-checkout> <data dir>   # a data dir a bench run kept (BENCH_KEEP=1)
 *
 * Env: COMPARE_ROUNDS (default 6) of COMPARE_SECONDS (default 3); COMPARE_WORKER=on to run each
 * server's job worker in it, as the bench's servers do (then give each its own database, below);
 * COMPARE_DATA_AFTER, a copy of the data dir for this checkout's server when the change migrates the
 * schema (two servers on one embedded database would share the migration); DATABASE_URL for a
 * PostgreSQL schema instead, and COMPARE_DATABASE_URL_AFTER for a copy of it when the change
 * migrates the schema.
 */

const [name, beforeTree, dataDir] = process.argv.slice(2);
if (!name || !beforeTree || !dataDir) {
  process.stderr.write('usage: node bench/compare.ts <view|list|unauthorized|create> <before-checkout> <data dir>\n');
  process.exit(2);
}
const rounds = Number(process.env.COMPARE_ROUNDS ?? 6);
const seconds = Number(process.env.COMPARE_SECONDS ?? 3);
const seed = JSON.parse(fs.readFileSync(path.join(dataDir, 'seed.json'), 'utf8'));
const benchCase = cases(seed, '{"region": "us-east", "+order_by": "label"}').find((c) => c.name === name);
if (!benchCase) throw new Error(`no case named ${name}`);

pin(process.pid, 1);
const env: Record<string, string> = {
  CUMULO_DATA_DIR: dataDir,
  LOG_LEVEL: 'info',
  CUMULO_WORKER: process.env.COMPARE_WORKER ?? 'off',
  NODE_OPTIONS: '--max-semi-space-size=16',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
};
/** The `cumulo` command of the tree to compare with: bin/cumulo.ts before the package (0.1.0), bin/cumulo.js since. */
function beforeBin(tree: string): string {
  const bin = ['bin/cumulo.js', 'bin/cumulo.ts'].map((f) => path.join(tree, f)).find((f) => fs.existsSync(f));
  if (bin === undefined) throw new Error(`no bin/cumulo.js or bin/cumulo.ts in ${tree}`);
  return bin;
}
const logs = fs.mkdtempSync(path.join(dataDir, '..', 'cumulo-compare-'));
const servers = {
  before: await startProcess(env, {
    core: 0,
    logFile: path.join(logs, 'before.log'),
    script: beforeBin(beforeTree),
  }),
  after: await startProcess(
    {
      ...env,
      CUMULO_DATA_DIR: process.env.COMPARE_DATA_AFTER ?? dataDir,
      ...(process.env.COMPARE_DATABASE_URL_AFTER ? { DATABASE_URL: process.env.COMPARE_DATABASE_URL_AFTER } : {}),
    },
    { core: 0, logFile: path.join(logs, 'after.log') },
  ),
};
const measured = {
  before: { rps: [] as number[], cpu: [] as number[], p99: [] as number[] },
  after: { rps: [] as number[], cpu: [] as number[], p99: [] as number[] },
};
const target = (s: ServerProcess) => ({ baseUrls: [s.baseUrl], processes: [s] });
try {
  for (const s of Object.values(servers)) await load(target(s), benchCase, 2, 32);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const which of order) {
      const m = await load(target(servers[which]), benchCase, seconds, 32);
      measured[which].rps.push(m.rps);
      measured[which].cpu.push((m.cpuUser ?? 0) + (m.cpuSys ?? 0));
      measured[which].p99.push(m.p99);
    }
  }
} finally {
  await stop(servers.before);
  await stop(servers.after);
  fs.rmSync(logs, { recursive: true, force: true });
}
const line = (which: 'before' | 'after') =>
  `${Math.round(median(measured[which].rps))} req/s, p99 ${median(measured[which].p99)} ms, ${median(measured[which].cpu).toFixed(1)} µs CPU a request`;
process.stdout.write(
  `${name}: before ${line('before')}; after ${line('after')}; after/before ${(median(measured.after.rps) / median(measured.before.rps)).toFixed(3)}\n`,
);
