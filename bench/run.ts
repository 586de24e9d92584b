import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Case, cases } from './cases.ts';
import { consolePart } from './console-load.ts';
import { interleaved, load, type Measured, median, type Target } from './measure.ts';
import { benchSchema } from './postgres.ts';
import {
  canPin,
  memoryDetail,
  pin,
  rssMb,
  runProcess,
  type ServerProcess,
  startProcess,
  startWorkerProcess,
  stop,
} from './processes.ts';
import { byLayer, formatLayers, formatSummary, summarize } from './profile-summary.ts';
import type { SeedResult } from './shape.ts';
import { type Check, fmt, printChecks, TARGETS, targetOf } from './targets.ts';

/**
 * `npm run bench`: the real server as `npm start` runs it (job worker in the process) against a bare
 * Fastify process serving the same objects through the same response schemas, in interleaved rounds;
 * on the embedded database, on PostgreSQL (with a scale-out run: two servers and a worker), and at a
 * large size (flatness and memory). Each figure is printed with its target. See docs/benchmark.md.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '..');
const BIN = path.join(ROOT, 'bin', 'cumulo.js');

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number`);
  return n;
}

function list(name: string, fallback: string): string[] {
  return (process.env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const nodes = envNumber('BENCH_NODES', 10_000);
const scaleNodes = envNumber('BENCH_SCALE_NODES', 1_000_000);
/** A thousand nodes an account, so the account measured holds as many nodes at every size. */
const accountsFor = (n: number) => Math.max(2, Math.ceil(n / 1000));
const settings = {
  nodes,
  accounts: envNumber('BENCH_ACCOUNTS', accountsFor(nodes)),
  rounds: Math.max(1, envNumber('BENCH_ROUNDS', 4)),
  seconds: envNumber('BENCH_DURATION', 5),
  warmup: envNumber('BENCH_WARMUP', 2),
  createSeconds: envNumber('BENCH_CREATE_SECONDS', 30),
  connections: envNumber('BENCH_CONNECTIONS', 32),
  worker: process.env.BENCH_WORKER !== 'off',
  /** '1': each missed case is profiled; 'all': every case. */
  cpuProfile: process.env.BENCH_CPU_PROF === 'all' ? 'all' : process.env.BENCH_CPU_PROF === '1' ? 'missed' : null,
  keep: process.env.BENCH_KEEP === '1' || process.env.BENCH_REUSE !== undefined,
  /** A data dir a run with BENCH_KEEP=1 left behind: measure its embedded database again without seeding. */
  reuse: process.env.BENCH_REUSE || undefined,
  filter: process.env.BENCH_LIST_FILTER ?? JSON.stringify({ region: 'us-east', '+order_by': 'label' }),
  only: list('BENCH_ONLY', 'view,list,unauthorized,create'),
  parts: list('BENCH_PARTS', 'embedded,postgres,scale,console'),
  databaseUrl: process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  scaleNodes,
  scaleDir: process.env.BENCH_SCALE_DIR ?? path.join(ROOT, '.bench', `nodes-${scaleNodes}`),
  settleTimeout: envNumber('BENCH_SETTLE_TIMEOUT', 900),
  serverNodeOptions: process.env.BENCH_SERVER_NODE_OPTIONS ?? '--max-semi-space-size=16',
  /** The servers' LOG_LEVEL: `npm start`'s own (info, a line a request) unless told otherwise. */
  logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
};

/** Where every process of the run writes its output (a server under load logs more than memory should hold). */
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-bench-logs-'));
let logFiles = 0;
function logFile(name: string): string {
  logFiles += 1;
  return path.join(logDir, `${String(logFiles).padStart(2, '0')}-${name}.log`);
}

const log = (line = '') => process.stdout.write(`${line}\n`);
const SERVER_CORE = 0;
const LOAD_CORE = 1;

async function getJson(url: string, token: string, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers } });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the server processes of a part share: database, data dir, log level, V8 setting. */
interface PartEnv {
  part: 'embedded' | 'postgres' | 'scale';
  dataDir: string;
  databaseUrl?: string;
}

function serverEnv(p: PartEnv, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CUMULO_DATA_DIR: p.dataDir,
    LOG_LEVEL: settings.logLevel,
    CUMULO_WORKER: settings.worker ? 'on' : 'off',
    ...(p.databaseUrl ? { DATABASE_URL: p.databaseUrl } : {}),
    ...(settings.serverNodeOptions ? { NODE_OPTIONS: settings.serverNodeOptions } : {}),
    ...extra,
  };
}

/**
 * Seeds the part's database from a process of its own (bench/seed.ts), unless a seed is there
 * already. A server with no worker prepares the database first (migrations, the catalog) and is
 * stopped before the seed runs the nodes' provisioning jobs, so that the measured server, started
 * afterwards, finds every node running and no job of the seed left to do.
 */
async function seedOnce(p: PartEnv, count: number, accounts: number): Promise<SeedResult> {
  const seedFile = path.join(p.dataDir, 'seed.json');
  if (!fs.existsSync(seedFile)) {
    await stop(await startProcess(serverEnv(p, { CUMULO_WORKER: 'off' }), { logFile: logFile(`${p.part}-prepare`) }));
    await runProcess(path.join(HERE, 'seed.ts'), {
      CUMULO_DATA_DIR: p.dataDir,
      ...(p.databaseUrl ? { DATABASE_URL: p.databaseUrl } : {}),
      LOG_LEVEL: 'warn',
      BENCH_NODES: String(count),
      BENCH_ACCOUNTS: String(accounts),
      BENCH_SEED_OUT: seedFile,
      // Provisioning takes no simulated time in the seed process, so its jobs are due at once.
      CUMULO_TIME_SCALE: '0.000000001',
    });
    const seed = JSON.parse(fs.readFileSync(seedFile, 'utf8')) as SeedResult;
    log(
      `  seeded ${fmt(seed.nodes)} nodes over ${fmt(accounts)} accounts (${seed.path} path) in ${fmt(seed.seconds, 1)} s ` +
        `(${fmt(seed.nodes / seed.seconds)} nodes/s), provisioned in ${fmt(seed.settleSeconds, 1)} s`,
    );
    return seed;
  }
  const seed = JSON.parse(fs.readFileSync(seedFile, 'utf8')) as SeedResult;
  log(
    `  reusing ${p.dataDir}: ${fmt(seed.nodes)} nodes, seeded earlier in ${fmt(seed.seconds, 1)} s + ${fmt(seed.settleSeconds, 1)} s ` +
      'of provisioning (with what earlier runs added to it)',
  );
  return seed;
}

interface NodePage {
  data: { id: number; status: string }[];
  results: number;
}

/** The account's nodes with ids above `afterId`, in id order, a page of 100. */
function nodesAfter(baseUrl: string, token: string, afterId: number, order: 'asc' | 'desc' = 'asc'): Promise<NodePage> {
  const filter = JSON.stringify({ id: { '+gt': afterId }, '+order_by': 'id', '+order': order });
  return getJson(`${baseUrl}/v4/node/instances?page_size=100`, token, { 'x-filter': filter }) as Promise<NodePage>;
}

/** The highest node id of the account (0 for none). */
async function lastNodeId(baseUrl: string, token: string): Promise<number> {
  return (await nodesAfter(baseUrl, token, 0, 'desc')).data[0]?.id ?? 0;
}

/**
 * Waits until every node of the account with an id above `afterId` is running, walking them in id
 * order (they are provisioned in about that order); how long it took, or how many are left.
 */
async function waitAllRunning(baseUrl: string, token: string, afterId: number): Promise<{ seconds: number; left: number }> {
  const started = performance.now();
  let cursor = afterId;
  for (;;) {
    const page = await nodesAfter(baseUrl, token, cursor);
    const seconds = (performance.now() - started) / 1000;
    if (page.results === 0) return { seconds, left: 0 };
    const waiting = page.data.find((n) => n.status !== 'running');
    for (const n of page.data) {
      if (n === waiting) break;
      cursor = n.id;
    }
    if (waiting) {
      if (seconds > settings.settleTimeout) return { seconds, left: page.results };
      await wait(500);
    }
  }
}

const targetOf1 = (server: ServerProcess): Target => ({ baseUrls: [server.baseUrl], processes: [server] });

function cpuText(m: Measured): string {
  return m.cpuUser === null || m.cpuSys === null ? 'n/a' : `${fmt(m.cpuUser)}+${fmt(m.cpuSys)}`;
}

function unexpectedText(m: Measured): string {
  return m.unexpected + m.errors > 0 ? ` (${m.unexpected} unexpected statuses, ${m.errors} errors)` : '';
}

interface CaseResult {
  c: Case;
  cumulo: Measured;
  bare: Measured | null;
}

function checksOf(part: 'embedded' | 'postgres', results: CaseResult[]): Check[] {
  const checks: Check[] = [];
  for (const { c, cumulo, bare } of results) {
    const t = targetOf(part, c.name);
    const add = (figure: string, value: string, target: string, met: boolean) =>
      checks.push({ part, subject: c.name, figure, value, target, met: met && cumulo.unexpected + cumulo.errors === 0 });
    if (t.ratio !== undefined && bare) {
      const ratio = cumulo.rps / bare.rps;
      add('ratio to bare (req/s)', `${fmt(ratio, 2)} (${fmt(cumulo.rps)} / ${fmt(bare.rps)})`, `>= ${t.ratio}`, ratio >= t.ratio);
    }
    if (t.rps !== undefined) add('req/s', fmt(cumulo.rps), `>= ${fmt(t.rps)}`, cumulo.rps >= t.rps);
    if (t.p99 !== undefined) add('p99 ms', fmt(cumulo.p99), `<= ${t.p99}`, cumulo.p99 <= t.p99);
  }
  return checks;
}

function printCases(results: CaseResult[]): void {
  log('  | case | cumulo req/s | p50 ms | p99 ms | CPU µs/req (user+sys) | bare req/s | bare p99 ms | bare CPU µs/req | ratio |');
  log('  |---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { c, cumulo, bare } of results) {
    const b = bare ? [fmt(bare.rps), fmt(bare.p99), cpuText(bare), fmt(cumulo.rps / bare.rps, 2)] : ['', '', '', ''];
    log(
      `  | ${c.name} | ${fmt(cumulo.rps)}${unexpectedText(cumulo)} | ${fmt(cumulo.p50)} | ${fmt(cumulo.p99)} | ${cpuText(cumulo)} | ` +
        `${b.join(' | ')} |`,
    );
  }
}

/** The bare server of a part: its env and script, answering the fixture its measuring wrote. */
function bareServer(p: PartEnv): { env: Record<string, string>; script: string; fixture: string } {
  const fixture = path.join(p.dataDir, 'fixture.json');
  return { env: { BENCH_FIXTURE: fixture }, script: path.join(HERE, 'bare-server.ts'), fixture };
}

/** A server started with --cpu-prof, loaded with a case for `seconds`: its profile and the answers it gave. */
async function profiled(
  env: Record<string, string>,
  options: { script?: string; logFile: string },
  c: Case,
  seconds: number,
): Promise<{ file: string; answers: number } | null> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cumulo-prof-${path.basename(options.logFile, '.log')}-${c.name}-`));
  const nodeOptions = `${env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${dir}`.trim();
  const server = await startProcess({ ...env, NODE_OPTIONS: nodeOptions }, { ...options, core: SERVER_CORE });
  let answers = 0;
  try {
    const m = await load(targetOf1(server), c, seconds, settings.connections);
    answers = Math.round(m.rps * seconds);
  } finally {
    await stop(server);
  }
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  return file ? { file: path.join(dir, file), answers } : null;
}

/**
 * One profiled run of a case on a server restarted with --cpu-prof, and of the bare server under the
 * same load when the case has one: where the time goes, and the microseconds a request by layer side
 * by side, which is what tells the cost of the service's work from the cost any Fastify server pays.
 */
async function profileCase(p: PartEnv, c: Case, seconds: number): Promise<string> {
  const server = await profiled(serverEnv(p), { logFile: logFile(`${p.part}-profiled`) }, c, seconds);
  if (!server) return '  (no profile was written)';
  const spec = bareServer(p);
  const bare =
    c.name === 'create' || !fs.existsSync(spec.fixture)
      ? null
      : await profiled(spec.env, { script: spec.script, logFile: logFile(`${p.part}-bare-profiled`) }, c, seconds);
  const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8'));
  const profile = read(server.file);
  const text = [
    `profile: ${server.file}${bare ? ` (bare server: ${bare.file})` : ''}`,
    formatSummary(summarize(profile, 12)),
    formatLayers(byLayer(profile), server.answers, bare ? { times: byLayer(read(bare.file)), answers: bare.answers } : undefined),
  ].join('\n');
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

interface PartResult {
  results: CaseResult[];
  checks: Check[];
}

/** The cases on one database: interleaved rounds of the reads, then the sustained create. */
async function measurePart(p: PartEnv, seed: SeedResult, server: ServerProcess): Promise<PartResult> {
  const [viewer, creator] = seed.accounts;
  if (!viewer || !creator) throw new Error('the seed made fewer than two accounts');
  const node = await getJson(`${server.baseUrl}/v4/node/instances/${viewer.nodeIds[0]}`, viewer.token);
  const page = await getJson(`${server.baseUrl}/v4/node/instances?page_size=100`, viewer.token, { 'x-filter': settings.filter });
  const { results: total, data } = page as { results: number; data: unknown[] };
  log(`  list: ${settings.filter} -> ${data.length} of ${total} results on page 1`);
  const spec = bareServer(p);
  fs.writeFileSync(spec.fixture, JSON.stringify({ node, page }));
  const bare = await startProcess(spec.env, { script: spec.script, core: SERVER_CORE, logFile: logFile(`${p.part}-bare`) });
  const results: CaseResult[] = [];
  try {
    const all = cases(seed, settings.filter).filter((c) => settings.only.includes(c.name));
    for (const c of all.filter((k) => k.name !== 'create')) {
      const m = await interleaved(targetOf1(bare), targetOf1(server), c, settings);
      results.push({ c, ...m });
      log(
        `  ${c.name}: cumulo ${fmt(m.cumulo.rps)} req/s p99 ${m.cumulo.p99} ms; bare ${fmt(m.bare.rps)} req/s p99 ${m.bare.p99} ms`,
      );
    }
    const create = all.find((k) => k.name === 'create');
    const checks = checksOf(p.part === 'postgres' ? 'postgres' : 'embedded', results);
    if (create) {
      const lastBefore = await lastNodeId(server.baseUrl, creator.token);
      if (settings.warmup > 0) await load(targetOf1(server), create, settings.warmup, settings.connections);
      const m = await load(targetOf1(server), create, settings.createSeconds, settings.connections);
      results.push({ c: create, cumulo: m, bare: null });
      const made = (await nodesAfter(server.baseUrl, creator.token, lastBefore)).results;
      log(
        `  create: ${fmt(m.rps)} nodes/s for ${settings.createSeconds} s, p99 ${m.p99} ms; waiting for the ${fmt(made)} new nodes to run`,
      );
      const settled = await waitAllRunning(server.baseUrl, creator.token, lastBefore);
      const part = p.part === 'postgres' ? 'postgres' : 'embedded';
      checks.push(...checksOf(part, [{ c: create, cumulo: m, bare: null }]));
      checks.push({
        part,
        subject: 'create',
        figure: 'every created node running',
        value:
          settled.left === 0
            ? `${fmt(made)} nodes, all running ${fmt(settled.seconds)} s after the run`
            : `${fmt(settled.left)} of ${fmt(made)} not running after ${fmt(settled.seconds)} s`,
        target: 'all',
        met: settled.left === 0,
      });
    }
    printCases(results);
    return { results, checks };
  } finally {
    await stop(bare);
  }
}

/** Where the CPU time of each missed case (BENCH_CPU_PROF=1) or of every case (=all) goes, or how to find out. */
async function explainMissed(p: PartEnv, seed: SeedResult, checks: Check[]): Promise<void> {
  const chosen = [...new Set(checks.filter((c) => settings.cpuProfile === 'all' || !c.met).map((c) => c.subject))];
  if (chosen.length === 0) return;
  if (!settings.cpuProfile) {
    log(`  missed: ${chosen.join(', ')}; BENCH_CPU_PROF=1 profiles each missed case and prints what limits it`);
    return;
  }
  for (const c of cases(seed, settings.filter).filter((k) => chosen.includes(k.name))) {
    log(`  what limits ${p.part} ${c.name} (a ${settings.seconds * 2} s run on a server with --cpu-prof):`);
    log(await profileCase(p, c, settings.seconds * 2));
  }
}

async function embeddedPart(checks: Check[]): Promise<PartResult | null> {
  const dataDir = settings.reuse ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-bench-'));
  const p: PartEnv = { part: 'embedded', dataDir };
  log(`embedded database (node:sqlite), ${fmt(settings.nodes)} nodes; data in ${dataDir}`);
  let server: ServerProcess | null = null;
  try {
    const seed = await seedOnce(p, settings.nodes, settings.accounts);
    server = await startProcess(serverEnv(p), { core: SERVER_CORE, logFile: logFile('embedded') });
    const result = await measurePart(p, seed, server);
    log(`  server VmRSS ${fmt(rssMb(server.child.pid) ?? 0, 1)} MB after the runs (${await memoryDetail(server)})`);
    await stop(server);
    checks.push(...result.checks);
    await explainMissed(p, seed, result.checks);
    return result;
  } finally {
    if (server) await stop(server);
    if (!settings.keep) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One server with its worker against two servers and a `cumulo worker`, unpinned, case by case. */
async function scaleOut(p: PartEnv, seed: SeedResult): Promise<void> {
  const seconds = settings.seconds * 2;
  const all = cases(seed, settings.filter).filter((c) => settings.only.includes(c.name));
  const one = await startProcess(serverEnv(p), { logFile: logFile('postgres-one') });
  const single = new Map<string, Measured>();
  try {
    for (const c of all) single.set(c.name, await load(targetOf1(one), c, seconds, settings.connections));
  } finally {
    await stop(one);
  }
  const servers = [
    await startProcess(serverEnv(p, { CUMULO_WORKER: 'off' }), { logFile: logFile('postgres-serve-a') }),
    await startProcess(serverEnv(p, { CUMULO_WORKER: 'off' }), { logFile: logFile('postgres-serve-b') }),
  ];
  const worker = await startWorkerProcess(serverEnv(p), BIN);
  try {
    log(`  scale-out (${seconds} s a case, no pinning, PostgreSQL on the same two cores):`);
    log('  | case | one `serve` req/s (p99 ms) | two `serve` + one `worker` req/s (p99 ms) | gain |');
    log('  |---|---:|---:|---:|');
    for (const c of all) {
      const target: Target = { baseUrls: servers.map((s) => s.baseUrl), processes: [...servers, worker] };
      const two = await load(target, c, seconds, settings.connections);
      const s = single.get(c.name) as Measured;
      log(
        `  | ${c.name} | ${fmt(s.rps)} (${s.p99}) | ${fmt(two.rps)} (${two.p99})${unexpectedText(two)} | ${fmt(two.rps / s.rps, 2)}x |`,
      );
    }
  } finally {
    for (const s of [...servers, worker]) await stop(s);
  }
}

async function postgresPart(checks: Check[]): Promise<void> {
  const schema = await benchSchema(settings.databaseUrl);
  const shown = settings.databaseUrl.replace(/\/\/[^@/]*@/, '//');
  if ('unavailable' in schema) {
    log(`PostgreSQL at ${shown}: unavailable (${schema.unavailable}); its figures are missed`);
    checks.push({ part: 'postgres', subject: '-', figure: 'measured', value: 'no database', target: 'measured', met: false });
    return;
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-bench-pg-'));
  const p: PartEnv = { part: 'postgres', dataDir, databaseUrl: schema.url };
  log(`PostgreSQL at ${shown}, schema ${schema.name}, ${fmt(settings.nodes)} nodes (the database on the same two cores)`);
  let server: ServerProcess | null = null;
  try {
    const seed = await seedOnce(p, settings.nodes, settings.accounts);
    server = await startProcess(serverEnv(p), { core: SERVER_CORE, logFile: logFile('postgres') });
    const result = await measurePart(p, seed, server);
    await stop(server);
    checks.push(...result.checks);
    await explainMissed(p, seed, result.checks);
    await scaleOut(p, seed);
  } finally {
    if (server) await stop(server);
    if (!settings.keep) {
      await schema.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

/** View and list at the large size against the main part's size, and the server's memory there. */
async function scalePart(checks: Check[], small: PartResult | null): Promise<void> {
  const p: PartEnv = { part: 'scale', dataDir: settings.scaleDir };
  fs.mkdirSync(p.dataDir, { recursive: true });
  log(`embedded database at ${fmt(settings.scaleNodes)} nodes; data in ${p.dataDir} (kept: seeded once, reused after)`);
  const seed = await seedOnce(p, settings.scaleNodes, accountsFor(settings.scaleNodes));
  const server = await startProcess(serverEnv(p), { core: SERVER_CORE, logFile: logFile('scale') });
  try {
    const reads = cases(seed, settings.filter).filter((c) => c.name === 'view' || c.name === 'list');
    for (const c of reads) {
      if (settings.warmup > 0) await load(targetOf1(server), c, settings.warmup, settings.connections);
      const runs: Measured[] = [];
      for (let i = 0; i < settings.rounds; i += 1)
        runs.push(await load(targetOf1(server), c, settings.seconds, settings.connections));
      const p50 = median(runs.map((m) => m.p50));
      const rps = median(runs.map((m) => m.rps));
      const base = small?.results.find((r) => r.c.name === c.name)?.cumulo;
      log(`  ${c.name}: ${fmt(rps)} req/s, p50 ${p50} ms, p99 ${median(runs.map((m) => m.p99))} ms`);
      if (!base) continue;
      const growth = p50 / Math.max(base.p50, 1);
      checks.push({
        part: 'scale',
        subject: c.name,
        figure: `p50 at ${fmt(settings.scaleNodes)} / at ${fmt(settings.nodes)} nodes`,
        value: `${fmt(growth, 2)} (${p50} / ${base.p50} ms; ${fmt(rps)} / ${fmt(base.rps)} req/s)`,
        target: `<= ${TARGETS.scale.p50Growth}`,
        met: growth <= TARGETS.scale.p50Growth,
      });
    }
    const rss = rssMb(server.child.pid) ?? Number.NaN;
    log(`  server VmRSS ${fmt(rss, 1)} MB (${await memoryDetail(server)})`);
    checks.push({
      part: 'scale',
      subject: 'memory',
      figure: `server VmRSS at ${fmt(settings.scaleNodes)} nodes`,
      value: `${fmt(rss)} MB`,
      target: `< ${TARGETS.scale.rssMb} MB`,
      met: rss < TARGETS.scale.rssMb,
    });
    checks.push({
      part: 'scale',
      subject: 'seeding',
      figure: `seeding ${fmt(seed.nodes)} nodes (bulk) + provisioning`,
      value: `${fmt(seed.seconds)} s + ${fmt(seed.settleSeconds)} s`,
      target: 'reported',
      met: true,
    });
  } finally {
    await stop(server);
  }
}

async function main(): Promise<void> {
  const [loadAtStart] = os.loadavg();
  pin(process.pid, LOAD_CORE);
  log(
    `cumulo bench: ${settings.rounds} interleaved rounds of ${settings.seconds} s (+${settings.warmup} s warm-up) a read case, ` +
      `create sustained for ${settings.createSeconds} s; ${settings.connections} connections; ${os.cpus().length} cores; parts ${settings.parts.join(', ')}`,
  );
  log(
    canPin()
      ? `servers pinned to core ${SERVER_CORE}, the load generator to core ${LOAD_CORE} (taskset); the seed and PostgreSQL are not pinned`
      : 'taskset is missing: nothing is pinned',
  );
  log(
    `server: node bin/cumulo.js serve, NODE_OPTIONS=${settings.serverNodeOptions || '(none)'}, LOG_LEVEL=${settings.logLevel}, ` +
      `job worker ${settings.worker ? 'in the process (as npm start runs it)' : 'off (BENCH_WORKER=off)'}; output in ${logDir}`,
  );
  const checks: Check[] = [];
  let small: PartResult | null = null;
  if (settings.parts.includes('embedded')) small = await embeddedPart(checks);
  if (settings.parts.includes('postgres')) await postgresPart(checks);
  if (settings.parts.includes('scale') && settings.scaleNodes > 0) await scalePart(checks, small);
  if (settings.parts.includes('console'))
    await consolePart(checks, log, { core: SERVER_CORE, benchCore: LOAD_CORE, logFile: logFile('console') });
  if (!settings.keep) fs.rmSync(logDir, { recursive: true, force: true });
  const [load1] = os.loadavg();
  log();
  printChecks(checks, log);
  log();
  log(
    `load average (1 min): ${fmt(loadAtStart ?? 0, 2)} at the start, ${fmt(load1 ?? 0, 2)} at the end ` +
      `(${os.cpus().length} cores; above ~2 means other processes competed for the CPU)`,
  );
}

await main();
