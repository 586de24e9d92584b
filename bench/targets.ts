/** The benchmark's targets, and each figure checked against its own. */

export interface Check {
  /** Where it was measured: `embedded`, `postgres`, `scale`, `console`. */
  part: string;
  /** The case (`view`, `list`, `create`, ...), or what else is measured (`memory`). */
  subject: string;
  figure: string;
  value: string;
  target: string;
  met: boolean;
}

/** Ratios to the bare route (medians of interleaved rounds) and absolute figures, per part and case. */
export const TARGETS = {
  embedded: {
    view: { ratio: 0.5, p99: 5 },
    list: { ratio: 0.4, p99: 30 },
    unauthorized: { ratio: 0.8 },
    create: { rps: 1500, p99: 100 },
  },
  postgres: {
    view: { ratio: 0.3 },
    list: { ratio: 0.25 },
    create: { rps: 600 },
  },
  /** p50 at the large size against p50 at the main part's size; server memory at the large size. */
  scale: { p50Growth: 1.5, rssMb: 300 },
} as const;

export interface CaseTarget {
  ratio?: number;
  p99?: number;
  rps?: number;
}

export function targetOf(part: 'embedded' | 'postgres', name: string): CaseTarget {
  return (TARGETS[part] as Record<string, CaseTarget>)[name] ?? {};
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function printChecks(checks: Check[], log: (line: string) => void): void {
  log('| part | case | figure | value | target | |');
  log('|---|---|---|---:|---|---|');
  for (const c of checks)
    log(`| ${c.part} | ${c.subject} | ${c.figure} | ${c.value} | ${c.target} | ${c.met ? 'met' : 'missed'} |`);
  const missed = checks.filter((c) => !c.met).length;
  log('');
  log(`${checks.length - missed} of ${checks.length} targets met${missed ? `, ${missed} missed` : ''}`);
}
