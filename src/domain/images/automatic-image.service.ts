import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { randomHex } from '../../random.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { IMAGE_EXPIRE } from './image.jobs.ts';
import { insertPrivateImage } from './image.repository.ts';
import { vendorOfSourceImage } from './image.service.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface AutomaticImageSpec {
  accountId: number;
  nodeId: number;
  nodeLabel: string;
  region: string;
  /** The deleted node's main disk; size in MB. */
  disk: { id: number; label: string; size: number; image: string | null };
  createdBy: string;
}

/**
 * Keeps an `automatic` image of a deleted node's main disk, available at once and removed by a job
 * once its `expiry` (the configured retention) has passed. Call it in the node delete's transaction.
 */
export async function keepAutomaticImage(db: Kysely<Database>, ctx: Context, spec: AutomaticImageSpec): Promise<void> {
  const nowMs = ctx.clock.nowMs();
  const expiresAt = nowMs + ctx.config.automaticImageRetentionDays * DAY_MS;
  const now = toTimestamp(nowMs);
  const row = await insertPrivateImage(
    db,
    {
      account_id: spec.accountId,
      label: `${spec.nodeLabel} ${spec.disk.label}`.slice(0, 255),
      description: `Kept automatically from disk ${spec.disk.label} of the deleted node ${spec.nodeLabel}`,
      created: now,
      updated: now,
      created_by: spec.createdBy,
      size: spec.disk.size,
      type: 'automatic',
      expiry: toTimestamp(expiresAt),
      vendor: await vendorOfSourceImage(db, ctx, spec.accountId, spec.disk.image),
      status: 'available',
      region: spec.region,
      blob_key: null,
      source_node_id: spec.nodeId,
    },
    `automatic/${randomHex(ctx.random, 12)}`,
  );
  await enqueueJob(db, ctx.clock, {
    kind: IMAGE_EXPIRE,
    accountId: spec.accountId,
    runAt: expiresAt,
    payload: { imageNum: row.num },
    dedupeKey: `${IMAGE_EXPIRE}:${row.num}`,
  });
}
