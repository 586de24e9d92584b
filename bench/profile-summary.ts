import fs from 'node:fs';
import path from 'node:path';

/**
 * Summarises a V8 CPU profile (`node --cpu-prof`): the frames with the most self time, and the
 * project's own functions by inclusive time. Usage: node bench/profile-summary.ts <file.cpuprofile> [top]
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

/** Self time and inclusive time per frame, in milliseconds. */
export function summarize(
  profile: Profile,
  top = 25,
): { total: number; idle: number; self: FrameTime[]; inclusive: FrameTime[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
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

if (import.meta.url === `file://${path.resolve(process.argv[1] ?? '')}`) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node bench/profile-summary.ts <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  process.stdout.write(`${formatSummary(summarize(profile, Number(process.argv[3] ?? 25)))}\n`);
}
