import autocannon from 'autocannon';
import type { Case } from './cases.ts';
import { cpuMs, type Measurable } from './processes.ts';

/** One measured run of a case, and how the figures of several runs are combined. */

export interface Measured {
  /** Answers a second with the status the case expects. */
  rps: number;
  p50: number;
  p99: number;
  /** Answers with another status, and connection errors or timeouts. */
  unexpected: number;
  errors: number;
  /** CPU time of the measured processes per expected answer, in microseconds (user, system). */
  cpuUser: number | null;
  cpuSys: number | null;
}

/** Where a run sends its load: one or more servers, and every process whose CPU time counts. */
export interface Target {
  baseUrls: string[];
  processes: Measurable[];
}

function totalCpu(processes: Measurable[]): { user: number; sys: number } | null {
  let user = 0;
  let sys = 0;
  for (const p of processes) {
    const t = cpuMs(p.child.pid);
    if (!t) return null;
    user += t.user;
    sys += t.sys;
  }
  return { user, sys };
}

/** Loads a target with a case for `seconds`, its connections spread evenly over the target's servers. */
export async function load(target: Target, c: Case, seconds: number, connections: number): Promise<Measured> {
  const before = totalCpu(target.processes);
  const share = Math.max(1, Math.floor(connections / target.baseUrls.length));
  const results = await Promise.all(
    target.baseUrls.map((url) =>
      autocannon({ url, connections: share, duration: seconds, headers: c.headers, requests: c.requests() }),
    ),
  );
  const after = totalCpu(target.processes);
  let expected = 0;
  let answered = 0;
  let errors = 0;
  let duration = 0;
  for (const r of results) {
    expected += r.statusCodeStats?.[String(c.status) as keyof typeof r.statusCodeStats]?.count ?? 0;
    answered += r.requests.total;
    errors += r.errors + r.timeouts;
    duration = Math.max(duration, r.duration);
  }
  const perAnswer = (ms: number) => (ms * 1000) / Math.max(1, expected);
  return {
    rps: expected / duration,
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    unexpected: answered - expected,
    errors,
    cpuUser: before && after ? perAnswer(after.user - before.user) : null,
    cpuSys: before && after ? perAnswer(after.sys - before.sys) : null,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The medians of several runs of one case on one server, figure by figure. */
export function medianOf(runs: Measured[]): Measured {
  const of = (pick: (m: Measured) => number | null) => {
    const values = runs.map(pick).filter((v): v is number => v !== null);
    return values.length === runs.length ? median(values) : null;
  };
  return {
    rps: median(runs.map((m) => m.rps)),
    p50: median(runs.map((m) => m.p50)),
    p99: median(runs.map((m) => m.p99)),
    unexpected: runs.reduce((n, m) => n + m.unexpected, 0),
    errors: runs.reduce((n, m) => n + m.errors, 0),
    cpuUser: of((m) => m.cpuUser),
    cpuSys: of((m) => m.cpuSys),
  };
}

/**
 * Interleaved rounds: bare, cumulo, cumulo, bare, bare, cumulo, ... so that whatever else the
 * machine does in the meantime weighs on both alike; the medians of the rounds are compared.
 */
export async function interleaved(
  bare: Target,
  cumulo: Target,
  c: Case,
  options: { rounds: number; seconds: number; warmup: number; connections: number },
): Promise<{ bare: Measured; cumulo: Measured }> {
  if (options.warmup > 0) {
    await load(bare, c, options.warmup, options.connections);
    await load(cumulo, c, options.warmup, options.connections);
  }
  const runs = { bare: [] as Measured[], cumulo: [] as Measured[] };
  for (let round = 0; round < options.rounds; round += 1) {
    const order = round % 2 === 0 ? (['bare', 'cumulo'] as const) : (['cumulo', 'bare'] as const);
    for (const which of order) {
      runs[which].push(await load(which === 'bare' ? bare : cumulo, c, options.seconds, options.connections));
    }
  }
  return { bare: medianOf(runs.bare), cumulo: medianOf(runs.cumulo) };
}
