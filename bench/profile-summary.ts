import fs from 'node:fs';
import path from 'node:path';

/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): the frames with the most self time, and the
 * project's own functions by inclusive time; given the answers the process gave while profiled, also
 * the microseconds a request by layer. Usage: node bench/profile-summary.ts <file.cpuprofile> [top] [answers]
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FrameTime {
  frame: string;
  ms: number;
  share: number;
}

function frameName(cf: CallFrame): string {
  const file = cf.url ? cf.url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '') : '';
  const where = file
    ? ` ${file.includes('node_modules') ? file.slice(file.lastIndexOf('node_modules/') + 13) : file}:${cf.lineNumber + 1}`
    : '';
  return `${cf.functionName || '(anonymous)'}${where}`;
}

/** The profile's nodes by id, each node's caller, and each node's self time in microseconds. */
function indexed(profile: Profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return { byId, parent, selfUs };
}

/** Self time and inclusive time per frame, in milliseconds. */
export function summarize(
  profile: Profile,
  top = 25,
): { total: number; idle: number; self: FrameTime[]; inclusive: FrameTime[] } {
  const { byId, parent, selfUs } = indexed(profile);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const name = frameName(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + us);
    // Each frame counts once per sample, however deep it recurses.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n) break;
      const f = frameName(n.callFrame);
      if (seen.has(f)) continue;
      seen.add(f);
      inclusive.set(f, (inclusive.get(f) ?? 0) + us);
    }
  }
  // Shares are of the time the process was busy: idle time says nothing about where the work goes.
  const idle = self.get('(idle)') ?? 0;
  self.delete('(idle)');
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const rank = (m: Map<string, number>, keep: (f: string) => boolean) =>
    [...m]
      .filter(([f]) => keep(f))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, us]) => ({ frame, ms: us / 1000, share: total ? us / total : 0 }));
  return {
    total: total / 1000,
    idle: idle / 1000,
    self: rank(self, () => true),
    inclusive: rank(inclusive, (f) => / src\//.test(f)),
  };
}

export function formatSummary(s: ReturnType<typeof summarize>): string {
  const line = (t: FrameTime) => `${t.ms.toFixed(0).padStart(8)} ms ${(t.share * 100).toFixed(1).padStart(5)}%  ${t.frame}`;
  return [
    `profile: ${s.total.toFixed(0)} ms busy (${s.idle.toFixed(0)} ms idle); shares are of the busy time`,
    'top frames by self time:',
    ...s.self.map(line),
    'project functions by inclusive time:',
    ...s.inclusive.map(line),
  ].join('\n');
}

/**
 * What a profile's busy time is spent on, by layer, each frame's self time counted in the first layer
 * whose rule it meets. The code's loading (module compiling, type stripping) is told apart by its
 * callers, so that a profile of a whole process can be read as the cost of its requests.
 */
const LAYERS: readonly { name: string; frame?: RegExp; url?: RegExp }[] = [
  { name: 'socket writes and reads (the kernel)', frame: /^(write(Utf8|Latin1|Ascii|Ucs2)String|writeBuffer|writev|read)$/ },
  { name: 'garbage collection', frame: /^\(garbage collector\)$/ },
  {
    name: "the database's statements and drivers",
    url: /\/src\/db\/|node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres)\//,
  },
  { name: 'Kysely (queries built and run)', url: /node_modules\/kysely\// },
  {
    name: 'Fastify (routing, hooks, validation, serializers)',
    url: /node_modules\/(fastify|find-my-way|fast-json-stringify|avvio|@fastify\/[^/]+|ajv|fast-uri|light-my-request)\//,
    frame: /^(validate\d+|anonymous\d+)$/,
  },
  {
    name: "Node's HTTP, sockets and streams",
    url: /^node:(_http_|net$|internal\/(streams|stream_base_commons|http)|events$|buffer$|internal\/buffer)/,
  },
  { name: 'hashing (the token check)', url: /^node:internal\/crypto\// },
  { name: "the service's own code", url: /\/src\// },
  { name: 'logging and metrics', url: /node_modules\/(pino|sonic-boom|prom-client)\// },
  {
    name: 'the VM: compiling, microtasks, timers',
    frame: /^(\(program\)|runMicrotasks|processTicksAndRejections)$/,
    url: /^node:internal\/(process\/task_queues|timers)|^node:timers$/,
  },
];
const LOADING = /^node:internal\/(modules|deps\/amaro)|^node:internal\/bootstrap/;

export interface LayerTimes {
  /** Busy milliseconds by layer (`other` for what no rule names), without the code's loading. */
  layers: Map<string, number>;
  /** The service's own files by self milliseconds. */
  files: Map<string, number>;
}

export function byLayer(profile: Profile): LayerTimes {
  const { byId, parent, selfUs } = indexed(profile);
  const layers = new Map<string, number>(LAYERS.map((l) => [l.name, 0]));
  layers.set('other', 0);
  const files = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    let loads = false;
    for (let cur: number | undefined = id; cur !== undefined && !loads; cur = parent.get(cur)) {
      loads = LOADING.test(byId.get(cur)?.callFrame.url ?? '');
    }
    if (loads) continue;
    const { functionName, url } = node.callFrame;
    const layer = LAYERS.find((l) => l.frame?.test(functionName) || (url !== '' && l.url?.test(url)))?.name ?? 'other';
    layers.set(layer, (layers.get(layer) ?? 0) + us / 1000);
    const src = url.indexOf('/src/');
    if (layer === "the service's own code" && src >= 0) {
      const file = url.slice(src + 1);
      files.set(file, (files.get(file) ?? 0) + us / 1000);
    }
  }
  return { layers, files };
}

/**
 * A table of microseconds a request by layer, of the server and (when given) the bare server under
 * the same load; each profile's milliseconds divided by the answers it gave while profiled.
 */
export function formatLayers(server: LayerTimes, answers: number, bare?: { times: LayerTimes; answers: number }): string {
  const us = (ms: number, n: number) => ((ms * 1000) / Math.max(1, n)).toFixed(1);
  const sum = (t: LayerTimes) => [...t.layers.values()].reduce((a, b) => a + b, 0);
  const rows = [...server.layers.keys()].filter((k) => (server.layers.get(k) ?? 0) > 0 || (bare?.times.layers.get(k) ?? 0) > 0);
  const head = bare ? '| layer | µs a request | bare server |\n|---|---:|---:|' : '| layer | µs a request |\n|---|---:|';
  const line = (k: string) =>
    `| ${k} | ${us(server.layers.get(k) ?? 0, answers)}${bare ? ` | ${us(bare.times.layers.get(k) ?? 0, bare.answers)}` : ''} |`;
  const total = `| **all** | **${us(sum(server), answers)}**${bare ? ` | **${us(sum(bare.times), bare.answers)}**` : ''} |`;
  const files = [...server.files]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([f, ms]) => `${f} ${us(ms, answers)}`)
    .join(', ');
  return [
    `${answers} answers profiled (the profiler slows a request; compare the layers, not the totals, with unprofiled runs)`,
    head,
    ...rows.map(line),
    total,
    `the service's own code by file, µs a request: ${files}`,
  ].join('\n');
}

if (import.meta.url === `file://${path.resolve(process.argv[1] ?? '')}`) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node bench/profile-summary.ts <file.cpuprofile> [top] [answers]\n');
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  process.stdout.write(`${formatSummary(summarize(profile, Number(process.argv[3] ?? 25)))}\n`);
  const answers = Number(process.argv[4] ?? 0);
  if (answers > 0) process.stdout.write(`${formatLayers(byLayer(profile), answers)}\n`);
}
