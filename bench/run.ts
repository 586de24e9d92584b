import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { type ServerProcess, startServerProcess } from '../test/helpers/server-process.ts';
import { formatSummary, summarize } from './profile-summary.ts';
import { ROOT_PASS, type SeedResult } from './shape.ts';

/**
 * `npm run bench`: the real server on a fresh embedded database seeded with BENCH_NODES nodes, and
 * a bare Fastify process answering the same three requests with fixed objects; a load generator
 * (autocannon, in this process) measures both on loopback. See the README's Benchmark section.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number`);
  return n;
}

const settings = {
  nodes: envNumber('BENCH_NODES', 100_000),
  accounts: envNumber('BENCH_ACCOUNTS', 100),
  duration: envNumber('BENCH_DURATION', 10),
  warmup: envNumber('BENCH_WARMUP', 3),
  connections: envNumber('BENCH_CONNECTIONS', 10),
  worker: process.env.BENCH_WORKER === 'on',
  cpuProfile: process.env.BENCH_CPU_PROF === '1',
  keep: process.env.BENCH_KEEP === '1' || process.env.BENCH_REUSE !== undefined,
  /** A data dir a run with BENCH_KEEP=1 left behind: measure it again without seeding. */
  reuse: process.env.BENCH_REUSE || undefined,
  filter: process.env.BENCH_LIST_FILTER ?? JSON.stringify({ region: 'us-east', '+order_by': 'label' }),
  only: (process.env.BENCH_ONLY ?? 'view,list,create').split(',').map((s) => s.trim()),
  /** Node options of the server process (NODE_OPTIONS); by default the V8 setting `npm start` uses. */
  serverNodeOptions: process.env.BENCH_SERVER_NODE_OPTIONS ?? '--max-semi-space-size=16',
};

/** Resident memory of a process, in MB, from /proc (Linux). */
function rssMb(pid: number | undefined): number | null {
  return procStatusMb(pid, 'VmRSS');
}

/** A memory line of /proc/<pid>/status (VmRSS, RssAnon, RssFile, VmHWM), in MB. */
function procStatusMb(pid: number | undefined, field: string): number | null {
  if (pid === undefined) return null;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/** Where a server's memory is: anonymous and file-backed resident pages, and the V8 heap (from /metrics). */
async function memoryDetail(server: ServerProcess): Promise<string> {
  const mb = (n: number | null) => (n === null ? 'n/a' : `${n.toFixed(0)} MB`);
  const pid = server.child.pid;
  let heap = '';
  try {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
    heap = `; V8 heap ${metric('nodejs_heap_size_used_bytes').toFixed(0)} MB used of ${metric('nodejs_heap_size_total_bytes').toFixed(0)} MB`;
  } catch {
    heap = '';
  }
  return `anonymous ${mb(procStatusMb(pid, 'RssAnon'))}, file-backed ${mb(procStatusMb(pid, 'RssFile'))}, peak ${mb(procStatusMb(pid, 'VmHWM'))}${heap}`;
}

/** CPU time a process has used so far, in ms: user and system (from /proc; Linux clock ticks are 10 ms). */
function cpuMs(pid: number | undefined): { user: number; sys: number } | null {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the state, field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) * 10, sys: Number(fields[12]) * 10 };
  } catch {
    return null;
  }
}

function runProcess(script: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${script} exited with ${code}`))));
  });
}

async function stop(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await server.exited;
  clearTimeout(timer);
}

async function getJson(url: string, token: string, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers } });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** One load shape: what autocannon sends, given the base URL of the server under test. */
interface Case {
  name: string;
  /** The target this case is compared with. */
  label: string;
  requests(): autocannon.Request[];
  headers: Record<string, string>;
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** The server's CPU time per answered request, in microseconds (user, system). */
  cpuUser: number | null;
  cpuSys: number | null;
}

async function load(server: ServerProcess, c: Case, seconds: number): Promise<Measured> {
  const before = cpuMs(server.child.pid);
  const result = await autocannon({
    url: server.baseUrl,
    connections: settings.connections,
    duration: seconds,
    headers: c.headers,
    requests: c.requests(),
  });
  const after = cpuMs(server.child.pid);
  const ok = result['2xx'];
  const perRequest = (ms: number) => (ms * 1000) / Math.max(1, result.requests.total);
  return {
    rps: ok / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuUser: before && after ? perRequest(after.user - before.user) : null,
    cpuSys: before && after ? perRequest(after.sys - before.sys) : null,
  };
}

let createRun = 0;

function cases(seed: SeedResult): Case[] {
  const [viewer, creator] = seed.accounts;
  if (!viewer || !creator) throw new Error('the seed made fewer than two accounts');
  const ids = viewer.nodeIds;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  return [
    {
      name: 'view',
      label: 'GET /v4/node/instances/:id',
      headers: auth(viewer.token),
      requests() {
        let i = 0;
        return [
          {
            method: 'GET',
            setupRequest(req) {
              i += 1;
              return { ...req, path: `/v4/node/instances/${ids[i % ids.length]}` };
            },
          },
        ];
      },
    },
    {
      name: 'list',
      label: 'GET /v4/node/instances?page_size=100 + X-Filter',
      headers: { ...auth(viewer.token), 'x-filter': settings.filter },
      requests: () => [{ method: 'GET', path: '/v4/node/instances?page_size=100' }],
    },
    {
      name: 'create',
      label: 'POST /v4/node/instances (image)',
      headers: { ...auth(creator.token), 'content-type': 'application/json' },
      requests() {
        createRun += 1;
        const run = createRun;
        let n = 0;
        const regions = seed.regions;
        return [
          {
            method: 'POST',
            path: '/v4/node/instances',
            setupRequest(req) {
              n += 1;
              const body = {
                region: regions[n % regions.length],
                type: 'g6-nanode-1',
                image: 'node/debian12',
                root_pass: ROOT_PASS,
                label: `load${process.pid}r${run}n${n}`,
                tags: ['bench'],
              };
              return { ...req, body: JSON.stringify(body) };
            },
          },
        ];
      },
    },
  ];
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

const TARGETS: Record<string, { ratio?: number; rps?: number }> = {
  view: { ratio: 0.5 },
  list: { ratio: 0.25 },
  create: { rps: 1000 },
};

async function main(): Promise<void> {
  const [loadAtStart] = os.loadavg();
  const dataDir = settings.reuse ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-bench-'));
  const profileDir = path.join(dataDir, 'profile');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `cumulo bench: ${fmt(settings.nodes)} nodes over ${settings.accounts} accounts; ${settings.duration} s a run ` +
      `(+${settings.warmup} s warm-up), ${settings.connections} connections; ${os.cpus().length} cores; data in ${dataDir}`,
  );
  log(
    settings.worker
      ? 'job worker: on (BENCH_WORKER=on): provisioning jobs of the seeded and created nodes run in the server process during the runs'
      : 'job worker: off (CUMULO_WORKER=off): the provisioning jobs the POSTs queue (two a node) would otherwise run on the ' +
          "server's CPU during the runs; measured is the HTTP work alone (BENCH_WORKER=on to include them). The seed runs its own " +
          "nodes' provisioning jobs before the runs, so they start out running.",
  );
  const serverEnv: Record<string, string> = {
    CUMULO_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    CUMULO_WORKER: settings.worker ? 'on' : 'off',
    ...(settings.serverNodeOptions ? { NODE_OPTIONS: settings.serverNodeOptions } : {}),
  };
  log(
    `server: node bin/cumulo.ts serve, NODE_OPTIONS=${settings.serverNodeOptions || '(none)'}` +
      (settings.serverNodeOptions === '--max-semi-space-size=16'
        ? ' (as npm start runs it; BENCH_SERVER_NODE_OPTIONS= for none)'
        : ''),
  );
  const servers: ServerProcess[] = [];
  try {
    let server = await startServerProcess(serverEnv);
    servers.push(server);
    const seedFile = path.join(dataDir, 'seed.json');
    const seedStart = performance.now();
    if (settings.reuse) {
      log(`BENCH_REUSE: measuring the database seeded earlier in ${dataDir} (with what earlier runs added to it)`);
    } else {
      await runProcess(path.join(HERE, 'seed.ts'), {
        CUMULO_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        BENCH_NODES: String(settings.nodes),
        BENCH_ACCOUNTS: String(settings.accounts),
        BENCH_SEED_OUT: seedFile,
        // Provisioning takes no simulated time in the seed process, so its jobs are due at once.
        CUMULO_TIME_SCALE: '0.000000001',
      });
    }
    const seed = JSON.parse(fs.readFileSync(seedFile, 'utf8')) as SeedResult;
    log(
      `seeded ${fmt(seed.nodes)} nodes (${seed.path} path) in ${fmt(seed.seconds, 1)} s (${fmt(seed.nodes / seed.seconds)} nodes/s), ` +
        `provisioned in ${fmt(seed.settleSeconds, 1)} s; ${fmt((performance.now() - seedStart) / 1000, 1)} s in all with process start`,
    );
    const rssSeeded = rssMb(server.child.pid);
    const memorySeeded = await memoryDetail(server);
    if (settings.cpuProfile) {
      // The profile covers the runs only: a second server process on the seeded database.
      await stop(server);
      servers.splice(servers.indexOf(server), 1);
      const options = `${settings.serverNodeOptions} --cpu-prof --cpu-prof-dir=${profileDir}`.trim();
      server = await startServerProcess({ ...serverEnv, NODE_OPTIONS: options });
      servers.push(server);
      log('BENCH_CPU_PROF=1: the server was restarted on the seeded database with --cpu-prof for the runs');
    }

    const [viewer] = seed.accounts;
    if (!viewer) throw new Error('no account seeded');
    const node = await getJson(`${server.baseUrl}/v4/node/instances/${viewer.nodeIds[0]}`, viewer.token);
    const page = await getJson(`${server.baseUrl}/v4/node/instances?page_size=100`, viewer.token, {
      'x-filter': settings.filter,
    });
    const listed = (page as { data: unknown[]; results: number }).data.length;
    log(`list filter: ${settings.filter} -> ${listed} of ${(page as { results: number }).results} results on page 1`);
    const fixture = path.join(dataDir, 'fixture.json');
    fs.writeFileSync(fixture, JSON.stringify({ node, page }));
    const bare = await startServerProcess({ BENCH_FIXTURE: fixture }, [], path.join(HERE, 'bare-server.ts'));
    servers.push(bare);

    const rows: { c: Case; cumulo: Measured; bare: Measured }[] = [];
    for (const c of cases(seed).filter((k) => settings.only.includes(k.name))) {
      if (settings.warmup > 0) {
        await load(bare, c, settings.warmup);
        await load(server, c, settings.warmup);
      }
      const b = await load(bare, c, settings.duration);
      const m = await load(server, c, settings.duration);
      rows.push({ c, cumulo: m, bare: b });
      log(`  ${c.name}: cumulo ${fmt(m.rps)} req/s p99 ${m.p99} ms; bare ${fmt(b.rps)} req/s p99 ${b.p99} ms`);
    }
    const rssAfter = rssMb(server.child.pid);
    const memoryAfter = await memoryDetail(server);

    log('');
    log(
      '| case | request | cumulo req/s | p50 ms | p99 ms | CPU µs/req (user+sys) | bare req/s | bare p99 ms | bare CPU µs/req | ratio | target | met |',
    );
    log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|');
    const cpu = (m: Measured) => (m.cpuUser === null || m.cpuSys === null ? 'n/a' : `${fmt(m.cpuUser)}+${fmt(m.cpuSys)}`);
    for (const { c, cumulo, bare: b } of rows) {
      const ratio = cumulo.rps / b.rps;
      const target = TARGETS[c.name] ?? {};
      const met = target.ratio !== undefined ? ratio >= target.ratio : target.rps !== undefined ? cumulo.rps >= target.rps : true;
      const targetText =
        target.ratio !== undefined ? `>= ${target.ratio} of bare` : target.rps !== undefined ? `>= ${fmt(target.rps)}/s` : '';
      const bad = cumulo.non2xx + cumulo.errors > 0 ? ` (${cumulo.non2xx} non-2xx, ${cumulo.errors} errors)` : '';
      log(
        `| ${c.name} | ${c.label} | ${fmt(cumulo.rps)}${bad} | ${cumulo.p50} | ${cumulo.p99} | ${cpu(cumulo)} | ` +
          `${fmt(b.rps)} | ${b.p99} | ${cpu(b)} | ` +
          `${fmt(ratio, 2)} | ${targetText} | ${met ? 'yes' : 'NO'} |`,
      );
    }
    const [load1] = os.loadavg();
    log('');
    log(
      `load average (1 min): ${fmt(loadAtStart ?? 0, 2)} at the start, ${fmt(load1 ?? 0, 2)} at the end ` +
        `(${os.cpus().length} cores; above ~2 means other processes competed for the CPU)`,
    );
    const rssText = (mb: number | null) => (mb === null ? 'n/a' : `${fmt(mb, 1)} MB`);
    const rssMet = rssSeeded !== null && rssAfter !== null && Math.max(rssSeeded, rssAfter) < 300;
    log('');
    log(
      `server resident memory (VmRSS): ${rssText(rssSeeded)} after seeding, ${rssText(rssAfter)} after the runs ` +
        `(target < 300 MB: ${rssMet ? 'yes' : 'NO'})`,
    );
    log(`  after seeding: ${memorySeeded}`);
    log(`  after the runs: ${memoryAfter}`);
    for (const s of servers.splice(0).reverse()) await stop(s);
    if (settings.cpuProfile) {
      for (const file of fs.readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'))) {
        const target = path.join(os.tmpdir(), `cumulo-bench-${file}`);
        fs.copyFileSync(path.join(profileDir, file), target);
        log('');
        log(`server CPU profile: ${target}`);
        log(formatSummary(summarize(JSON.parse(fs.readFileSync(target, 'utf8')), 20)));
      }
    }
  } finally {
    for (const s of servers.reverse()) await stop(s);
    if (!settings.keep) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
