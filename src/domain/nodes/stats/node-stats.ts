import { unitOf } from '../seeded.ts';

/**
 * Made-up but plausible usage figures of a node: every series is a rate per five-minute bucket,
 * derived from the node id, the series and the bucket (so the same question always gets the same
 * answer), shaped by a daily cycle and bounded by the node's type. Longer steps average the buckets
 * they cover, and transfer is the sum of the public traffic rates over time, so the figures agree.
 */

export const BUCKET_MS = 5 * 60_000;
const DAY_MS = 86_400_000;
const MONTH_S = 30 * 86_400;
/** Transfer quotas are counted in GiB. */
export const GIB = 2 ** 30;

/** The traffic series, by family, public and private, in and out: a sample's counters have the same names. */
export const TRAFFIC_SERIES = [
  'v4_in',
  'v4_out',
  'v4_private_in',
  'v4_private_out',
  'v6_in',
  'v6_out',
  'v6_private_in',
  'v6_private_out',
] as const;
export const SERIES = ['cpu', 'io', 'swap', ...TRAFFIC_SERIES] as const;
export type Series = (typeof SERIES)[number];

export interface StatsProfile {
  nodeId: number;
  vcpus: number;
  /** Outbound bandwidth cap, Mbit/s. */
  networkOutMbps: number;
  /** Monthly transfer quota, GiB. */
  transferGb: number;
  /** Whether the node has a private address (no private traffic otherwise). */
  privateNetwork: boolean;
}

/** Busier in the (UTC) afternoon, quieter at night: 0.3 to 1. */
function daily(ms: number): number {
  const hour = (((ms % DAY_MS) + DAY_MS) % DAY_MS) / 3_600_000;
  return 0.65 + 0.35 * Math.sin(((hour - 9) / 24) * 2 * Math.PI);
}

/** A per-node constant of the series, between lo and hi. */
function level(p: StatsProfile, s: Series, lo: number, hi: number): number {
  return lo + (hi - lo) * unitOf(p.nodeId, SERIES.indexOf(s), 0x1e7e1);
}

/** Bucket-to-bucket variation of the series: 0.5 to 1.5. */
function jitter(p: StatsProfile, s: Series, bucket: number): number {
  return 0.5 + unitOf(p.nodeId, SERIES.indexOf(s), bucket);
}

/** Bits/s of public outbound traffic that would use the node's whole quota in a month. */
function quotaRate(p: StatsProfile): number {
  return (p.transferGb * GIB * 8) / MONTH_S;
}

/** The series' rate in a bucket: CPU in percent of one core (up to vcpus x 100), IO in blocks/s, traffic in bits/s. */
export function rateAt(p: StatsProfile, s: Series, bucket: number): number {
  const shape = daily(bucket * BUCKET_MS) * jitter(p, s, bucket);
  const cap = p.networkOutMbps * 1e6;
  const publicOut = quotaRate(p) * level(p, 'v4_out', 0.05, 0.6);
  switch (s) {
    case 'cpu':
      return Math.min(p.vcpus * 100, p.vcpus * 100 * level(p, s, 0.02, 0.3) * shape);
    case 'io':
      return level(p, s, 2, 150) * shape;
    case 'swap':
      // Swapping is rare: most buckets have none.
      return jitter(p, s, bucket) > 1.4 ? level(p, s, 1, 40) * (jitter(p, s, bucket) - 1.4) * 10 : 0;
    case 'v4_out':
      return Math.min(cap, publicOut * shape);
    case 'v4_in':
      return Math.min(cap, publicOut * level(p, s, 0.2, 1.2) * shape);
    case 'v6_out':
    case 'v6_in':
      return Math.min(cap, publicOut * level(p, s, 0.02, 0.2) * shape);
    default:
      return p.privateNetwork ? Math.min(cap, publicOut * level(p, s, 0.01, 0.3) * shape) : 0;
  }
}

/** `[ms, value]` points every `stepMs` from the first step boundary at or after `fromMs` whose step has ended by `toMs`. */
export function seriesPoints(p: StatsProfile, s: Series, fromMs: number, toMs: number, stepMs: number): [number, number][] {
  const perStep = stepMs / BUCKET_MS;
  const points: [number, number][] = [];
  for (let t = Math.ceil(fromMs / stepMs) * stepMs; t + stepMs <= toMs; t += stepMs) {
    const first = t / BUCKET_MS;
    let sum = 0;
    for (let b = first; b < first + perStep; b += 1) sum += rateAt(p, s, b);
    points.push([t, Math.round((sum / perStep) * 100) / 100]);
  }
  return points;
}

/** Public bytes in and out over a period (IPv4 and IPv6; private traffic is not transfer). */
export function transferBytes(p: StatsProfile, fromMs: number, toMs: number): { in: number; out: number } {
  let bitsIn = 0;
  let bitsOut = 0;
  for (let b = Math.floor(fromMs / BUCKET_MS); b * BUCKET_MS < toMs; b += 1) {
    const seconds = (Math.min(toMs, (b + 1) * BUCKET_MS) - Math.max(fromMs, b * BUCKET_MS)) / 1000;
    if (seconds <= 0) continue;
    bitsIn += (rateAt(p, 'v4_in', b) + rateAt(p, 'v6_in', b)) * seconds;
    bitsOut += (rateAt(p, 'v4_out', b) + rateAt(p, 'v6_out', b)) * seconds;
  }
  return { in: Math.round(bitsIn / 8), out: Math.round(bitsOut / 8) };
}
