import type { NodeSampleTable } from './node-sample.table.ts';
import { type Series, TRAFFIC_SERIES } from './node-stats.ts';

/**
 * Rates from a node's samples (node-sample.table.ts): each pair of consecutive samples gives what
 * every counter grew by between them, over the seconds between them. Samples of another run of the
 * machine (it started again meanwhile) count from 0, so every counter grew by its whole value; so
 * did a counter lower than before.
 */

export type Counters = Omit<NodeSampleTable, 'node_id' | 'at'>;
export type Sample = Pick<NodeSampleTable, 'node_id' | 'at'> & Counters;

export const COUNTER_COLUMNS = [
  'cpu_seconds',
  'disk_read_bytes',
  'disk_write_bytes',
  ...TRAFFIC_SERIES,
] as const satisfies readonly (keyof Counters)[];

/** Bytes a block of the `io` series holds (a sector). */
export const BLOCK_BYTES = 512;

export function counterDelta(before: number, after: number): number {
  return after >= before ? after - before : after;
}

/**
 * What each counter grew by from `before` to `after`; with no sample before, or one of another run,
 * all the counters hold (they count from the machine's start).
 */
export function countersDelta(before: Counters | undefined, after: Counters): Counters {
  const delta = { ...after };
  if (before?.run === after.run)
    for (const column of COUNTER_COLUMNS) delta[column] = counterDelta(before[column], after[column]);
  return delta;
}

/** Public traffic is what transfer counts: routed IPv4 and IPv6, not the private addresses'. */
export function publicBytes(delta: Counters): { in: number; out: number } {
  return { in: delta.v4_in + delta.v6_in, out: delta.v4_out + delta.v6_out };
}

/** A series' value over an interval, in the unit of the made-up series: CPU in percent of one core, IO in blocks/s, traffic in bits/s. */
const RATE: Record<Series, (delta: Counters, seconds: number) => number> = {
  cpu: (d, s) => (d.cpu_seconds / s) * 100,
  io: (d, s) => (d.disk_read_bytes + d.disk_write_bytes) / BLOCK_BYTES / s,
  // The host cannot tell a guest's swapping from its other disk IO.
  swap: () => 0,
  v4_in: (d, s) => (d.v4_in * 8) / s,
  v4_out: (d, s) => (d.v4_out * 8) / s,
  v4_private_in: (d, s) => (d.v4_private_in * 8) / s,
  v4_private_out: (d, s) => (d.v4_private_out * 8) / s,
  v6_in: (d, s) => (d.v6_in * 8) / s,
  v6_out: (d, s) => (d.v6_out * 8) / s,
  v6_private_in: (d, s) => (d.v6_private_in * 8) / s,
  v6_private_out: (d, s) => (d.v6_private_out * 8) / s,
};

export interface SeriesWindow {
  fromMs: number;
  toMs: number;
  /** The sampling grid's bucket. */
  bucketMs: number;
  /** One point per step (a whole number of buckets). */
  stepMs: number;
}

/**
 * `[ms, value]` points of a series from one node's samples (in time order): a pair of consecutive
 * samples stands for the bucket before the later one, and a point is the average of the pairs in
 * its step, weighted by their seconds. After a gap (the machine stopped, or nothing sampled) the
 * first pair averages over the whole gap. Steps with no pair have no point; so has a step before `fromMs`
 * or one not ended by `toMs`.
 */
export function measuredPoints(samples: readonly Sample[], series: Series, window: SeriesWindow): [number, number][] {
  const steps = new Map<number, { value: number; seconds: number }>();
  for (let i = 1; i < samples.length; i += 1) {
    const before = samples[i - 1] as Sample;
    const after = samples[i] as Sample;
    const seconds = (after.at - before.at) / 1000;
    if (seconds <= 0) continue;
    const bucketStart = Math.floor(after.at / window.bucketMs) * window.bucketMs - window.bucketMs;
    const step = Math.floor(bucketStart / window.stepMs) * window.stepMs;
    if (step < window.fromMs || step + window.stepMs > window.toMs) continue;
    const rate = RATE[series](countersDelta(before, after), seconds);
    const sum = steps.get(step) ?? { value: 0, seconds: 0 };
    steps.set(step, { value: sum.value + rate * seconds, seconds: sum.seconds + seconds });
  }
  return [...steps].sort(([a], [b]) => a - b).map(([ms, sum]) => [ms, Math.round((sum.value / sum.seconds) * 100) / 100]);
}
