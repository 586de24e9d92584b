import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { enqueueJob } from '../../../jobs/queue.ts';
import { type NodeRow, updateNodeRow } from '../node.repository.ts';
import { effectiveSchedule, nextBackupAt } from './backup-schedule.ts';

/** The recurring job that takes a node's automatic backup each day in its window (backup.jobs.ts). */
export const BACKUP_SCHEDULE_JOB = 'backup.schedule';

/**
 * Queues the node's next scheduled backup for the first moment from `fromMs` on that its window is
 * open. One queued job per node (its dedupe key), so enabling twice does not take two backups a day.
 */
export async function queueScheduledBackup(db: Kysely<Database>, ctx: Context, node: NodeRow, fromMs: number): Promise<void> {
  const { window } = effectiveSchedule(node.id, node.backups_day, node.backups_window);
  await enqueueJob(db, ctx.clock, {
    kind: BACKUP_SCHEDULE_JOB,
    accountId: node.account_id,
    runAt: nextBackupAt(fromMs, window),
    payload: { nodeId: node.id },
    dedupeKey: `${BACKUP_SCHEDULE_JOB}:${node.id}`,
  });
}

/**
 * Turns the backup service on for a node, in the caller's transaction: a day and window are fixed
 * where it has none (or `Scheduling`), so the node shows the schedule it will follow, and the daily
 * job is queued. Node creation with `backups_enabled` and the enable operation both come here.
 */
export async function startAutomaticBackups(db: Kysely<Database>, ctx: Context, node: NodeRow): Promise<NodeRow> {
  const schedule = effectiveSchedule(node.id, node.backups_day, node.backups_window);
  const row = await updateNodeRow(db, node.account_id, node.id, {
    backups_enabled: 1,
    backups_day: schedule.day,
    backups_window: schedule.window,
  });
  await queueScheduledBackup(db, ctx, row, ctx.clock.nowMs());
  return row;
}
