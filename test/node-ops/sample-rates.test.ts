import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Counters,
  counterDelta,
  countersDelta,
  measuredPoints,
  publicBytes,
  type Sample,
} from '../../src/domain/nodes/stats/sample-rates.ts';

const ZERO: Counters = {
  run: 'first',
  cpu_seconds: 0,
  disk_read_bytes: 0,
  disk_write_bytes: 0,
  v4_in: 0,
  v4_out: 0,
  v4_private_in: 0,
  v4_private_out: 0,
  v6_in: 0,
  v6_out: 0,
  v6_private_in: 0,
  v6_private_out: 0,
};

const BUCKET = 300_000;

function sample(at: number, counters: Partial<Counters>): Sample {
  return { node_id: 1, at, ...ZERO, ...counters };
}

test('a counter grows by the difference; in another run of the machine, or lower than before, it counts from 0 and grew by its whole value', () => {
  assert.equal(counterDelta(100, 250), 150);
  assert.equal(counterDelta(100, 100), 0);
  assert.equal(counterDelta(5000, 40), 40);
  const delta = countersDelta(
    { ...ZERO, cpu_seconds: 90, v4_out: 1000, v6_in: 10 },
    { ...ZERO, cpu_seconds: 2, v4_out: 1500, v6_in: 30 },
  );
  assert.deepEqual(delta, { ...ZERO, cpu_seconds: 2, v4_out: 500, v6_in: 20 });
  assert.deepEqual(countersDelta(undefined, { ...ZERO, v4_in: 7 }), { ...ZERO, v4_in: 7 }, 'no sample before: since the start');
  // Started again and already past where the last run was: the run tells, not the values.
  const restarted = { ...ZERO, run: 'second', cpu_seconds: 120, v4_out: 3000 };
  assert.deepEqual(countersDelta({ ...ZERO, cpu_seconds: 90, v4_out: 1000 }, restarted), restarted);
  assert.deepEqual(publicBytes({ ...ZERO, v4_in: 1, v6_in: 2, v4_out: 4, v6_out: 8, v4_private_in: 16, v4_private_out: 32 }), {
    in: 3,
    out: 12,
  });
});

test('five-minute points: each pair of samples is the bucket before the later one, in percent, blocks/s and bits/s', () => {
  const samples = [
    sample(10 * BUCKET + 2000, { cpu_seconds: 100, disk_write_bytes: 0, v4_in: 0, v6_out: 0 }),
    sample(11 * BUCKET + 2000, { cpu_seconds: 250, disk_write_bytes: 512 * 300 * 40, v4_in: 3_750_000, v6_out: 375 }),
    // The machine started again: its counters count from 0.
    sample(12 * BUCKET + 2000, { run: 'second', cpu_seconds: 30, disk_read_bytes: 512 * 300, v4_in: 0, v6_out: 0 }),
  ];
  const window = { fromMs: 0, toMs: 13 * BUCKET, bucketMs: BUCKET, stepMs: BUCKET };
  assert.deepEqual(measuredPoints(samples, 'cpu', window), [
    [10 * BUCKET, 50],
    [11 * BUCKET, 10],
  ]);
  assert.deepEqual(measuredPoints(samples, 'io', window), [
    [10 * BUCKET, 40],
    [11 * BUCKET, 1],
  ]);
  assert.deepEqual(measuredPoints(samples, 'v4_in', window), [
    [10 * BUCKET, 100_000],
    [11 * BUCKET, 0],
  ]);
  assert.deepEqual(measuredPoints(samples, 'v6_out', window), [
    [10 * BUCKET, 10],
    [11 * BUCKET, 0],
  ]);
  assert.deepEqual(measuredPoints(samples, 'swap', window), [
    [10 * BUCKET, 0],
    [11 * BUCKET, 0],
  ]);
  assert.deepEqual(measuredPoints(samples.slice(0, 1), 'cpu', window), [], 'one sample: no rate yet');
  assert.deepEqual(measuredPoints([], 'cpu', window), []);
  assert.deepEqual(
    measuredPoints(samples, 'cpu', { ...window, fromMs: 11 * BUCKET }),
    [[11 * BUCKET, 10]],
    'none before the window',
  );
});

test('hourly points average their buckets by time; a gap is averaged over; a step not ended is left out', () => {
  const hour = 12 * BUCKET;
  const samples = [
    sample(0, { cpu_seconds: 0 }),
    sample(BUCKET, { cpu_seconds: 300 }),
    // Nothing sampled for three buckets: the pair stands for the last of them, its rate averaged over all four.
    sample(5 * BUCKET, { cpu_seconds: 300 + 1200 * 0.25 }),
    sample(hour + BUCKET, { cpu_seconds: 10_000 }),
  ];
  const window = { fromMs: 0, toMs: hour + 5 * BUCKET, bucketMs: BUCKET, stepMs: hour };
  // 600 s of CPU over 1500 s: 40 %; the pair in the second hour's step is not reported before the step ends.
  assert.deepEqual(measuredPoints(samples, 'cpu', window), [[0, 40]]);
  assert.equal(measuredPoints(samples, 'cpu', { ...window, toMs: 2 * hour }).length, 2);
});
