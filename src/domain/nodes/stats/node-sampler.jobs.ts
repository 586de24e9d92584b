import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import type { JobHandler } from '../../../jobs/handler.ts';
import { enqueueJob, releaseDedupeKey } from '../../../jobs/queue.ts';
import { type NodeReading, nextSampleAt, readNodeCounters, recordNodeSamples, sampleGrid } from './node-sampler.ts';

export const SAMPLE_JOB = 'node.sample';

interface Readings {
  atMs: number;
  readings: NodeReading[];
}

async function queueNextSample(db: Kysely<Database>, ctx: Context): Promise<void> {
  await enqueueJob(db, ctx.clock, {
    kind: SAMPLE_JOB,
    runAt: nextSampleAt(ctx.clock.nowMs(), sampleGrid(ctx.timing.scale)),
    dedupeKey: SAMPLE_JOB,
  });
}

/**
 * Starts the stats sampler of nodes that really run: the process that owns the compute driver calls
 * it once it has opened the driver. One chain at a time (its dedupe key), so a restart or a second
 * worker does not start another.
 */
export async function startNodeSampling(ctx: Context): Promise<void> {
  if (!ctx.compute) return;
  await ctx.db.transaction().execute((trx) => queueNextSample(trx, ctx));
  ctx.wakeWorker();
}

/**
 * The recurring sample, on the five-minute grid (scaled by CUMULO_TIME_SCALE): before the
 * transaction, the counters of every running machine; then a sample of each and the next run.
 */
const sampleNodes: JobHandler = {
  kind: SAMPLE_JOB,
  // Its prepare waits on the machines (QMP, nft), its run writes only samples: it need not hold up other jobs.
  parallel: true,
  async prepare({ ctx }): Promise<Readings> {
    return { atMs: ctx.clock.nowMs(), readings: await readNodeCounters(ctx) };
  },
  async run({ trx, ctx, job, prepared }) {
    await releaseDedupeKey(trx, job.id);
    if (!ctx.compute) return;
    const { atMs, readings } = prepared as Readings;
    await recordNodeSamples(trx, sampleGrid(ctx.timing.scale), atMs, readings);
    await queueNextSample(trx, ctx);
  },
  async onGiveUp({ trx, ctx }) {
    // The chain must not end on a failure: sample again at the next point of the grid.
    if (ctx.compute) await queueNextSample(trx, ctx);
  },
};

export const nodeSampleJobs: readonly JobHandler[] = [sampleNodes];
