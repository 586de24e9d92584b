import type { Kysely } from 'kysely';
import type { MachineCounters } from '../../../compute/driver.ts';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { machineKey } from '../compute/compute-keys.ts';
import { findNodeIdsMaybeRunning } from '../node.repository.ts';
import { addNodeTransfer, deleteNodeSamplesBefore, findLatestNodeSamples, insertNodeSample } from './node-sample.repository.ts';
import { BUCKET_MS } from './node-stats.ts';
import { type Counters, countersDelta, publicBytes } from './sample-rates.ts';

const BUCKETS_A_DAY = 288;
const BUCKETS_AN_HOUR = 12;
/** Samples are kept a little over a month: the month view of the current month shows the past 30 days. */
const KEPT_DAYS = 32;
/** Machines whose counters are read at once. */
const READS_AT_ONCE = 8;

/** The sampling grid (five minutes, scaled by CUMULO_TIME_SCALE) and the spans of the stats views on it. */
export interface SampleGrid {
  bucketMs: number;
  hourMs: number;
  dayMs: number;
  keptMs: number;
}

export function sampleGrid(scale: number): SampleGrid {
  const bucketMs = Math.max(1, Math.round(BUCKET_MS * scale));
  return {
    bucketMs,
    hourMs: BUCKETS_AN_HOUR * bucketMs,
    dayMs: BUCKETS_A_DAY * bucketMs,
    keptMs: KEPT_DAYS * BUCKETS_A_DAY * bucketMs,
  };
}

/** The next point of the grid after `nowMs`. */
export function nextSampleAt(nowMs: number, grid: SampleGrid): number {
  return (Math.floor(nowMs / grid.bucketMs) + 1) * grid.bucketMs;
}

export interface NodeReading {
  nodeId: number;
  counters: Counters;
}

function countersOf(machine: MachineCounters): Counters {
  return {
    run: machine.run,
    cpu_seconds: machine.cpuSeconds,
    disk_read_bytes: machine.diskReadBytes,
    disk_write_bytes: machine.diskWriteBytes,
    v4_in: machine.ipv4.inBytes,
    v4_out: machine.ipv4.outBytes,
    v4_private_in: machine.ipv4.localInBytes,
    v4_private_out: machine.ipv4.localOutBytes,
    v6_in: machine.ipv6.inBytes,
    v6_out: machine.ipv6.outBytes,
    v6_private_in: machine.ipv6.localInBytes,
    v6_private_out: machine.ipv6.localOutBytes,
  };
}

/** The counters of every node's machine that runs now (a few read at a time); none without a compute driver. */
export async function readNodeCounters(ctx: Context): Promise<NodeReading[]> {
  const compute = ctx.compute;
  if (!compute) return [];
  const ids = await findNodeIdsMaybeRunning(ctx.db);
  const readings: NodeReading[] = [];
  for (let i = 0; i < ids.length; i += READS_AT_ONCE) {
    const read = await Promise.all(
      ids.slice(i, i + READS_AT_ONCE).map(async (nodeId) => {
        try {
          const counters = await compute.counters(machineKey(nodeId));
          return counters ? { nodeId, counters: countersOf(counters) } : null;
        } catch (err) {
          ctx.log.warn({ err, nodeId }, 'stats: the counters of a node could not be read');
          return null;
        }
      }),
    );
    for (const reading of read) if (reading) readings.push(reading);
  }
  return readings;
}

/**
 * Stores the readings taken at `atMs`, one sample per node and bucket (a node sampled in this
 * bucket already, or gone meanwhile, is left out), adds each node's public traffic since its last sample to the month's
 * transfer, and forgets samples older than the grid keeps.
 */
export async function recordNodeSamples(
  db: Kysely<Database>,
  grid: SampleGrid,
  atMs: number,
  readings: readonly NodeReading[],
): Promise<void> {
  const latest = new Map(
    (
      await findLatestNodeSamples(
        db,
        readings.map((r) => r.nodeId),
      )
    ).map((s) => [s.node_id, s]),
  );
  // A node deleted (or stopped) since its counters were read is not sampled.
  const current = new Set(await findNodeIdsMaybeRunning(db));
  const at = new Date(atMs);
  const month = { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1 };
  for (const { nodeId, counters } of readings) {
    if (!current.has(nodeId)) continue;
    const before = latest.get(nodeId);
    if (before && Math.floor(before.at / grid.bucketMs) >= Math.floor(atMs / grid.bucketMs)) continue;
    await insertNodeSample(db, { node_id: nodeId, at: atMs, ...counters });
    const bytes = publicBytes(countersDelta(before, counters));
    if (bytes.in > 0 || bytes.out > 0)
      await addNodeTransfer(db, { node_id: nodeId, ...month, bytes_in: bytes.in, bytes_out: bytes.out });
  }
  await deleteNodeSamplesBefore(db, atMs - grid.keptMs);
}
