import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { ApiError } from '../../../errors.ts';
import type { JobContext, JobHandler } from '../../../jobs/handler.ts';
import type { OperationHandler } from '../../../jobs/operation.ts';
import { releaseDedupeKey } from '../../../jobs/queue.ts';
import { markNodeDisksReady } from '../disks/disk.repository.ts';
import { jobTarget, nodeTransition } from '../node.jobs.ts';
import { findNode, type NodeRow, releaseNode } from '../node.repository.ts';
import { NODE_OPS } from '../node-operations.ts';
import { type BackupRow, deleteBackupRows, findBackup, findBackupsOfNode, updateBackupRow } from './backup.repository.ts';
import { BACKUP_BUSY, beginBackup } from './backup.service.ts';
import { captureNode } from './backup-content.ts';
import { backupCopyJobs, discardBackupCopies, restoreBackupCopies, storeBackupCopies } from './backup-copies.ts';
import { RESTORE_BUSY } from './backup-restore.service.ts';
import { BACKUP_SCHEDULE_JOB, queueScheduledBackup } from './backup-schedule.service.ts';
import { automaticBackupsToDrop, effectiveSchedule, inWindow, nextWindowStart } from './backup-schedule.ts';

/** How long a scheduled backup waits for a busy node before trying again (within its window). */
const BUSY_RETRY_MS = 10 * 60_000;

async function backupOf(job: JobContext): Promise<BackupRow | undefined> {
  return findBackup(job.trx, jobTarget(job).accountId, Number(job.payload.backupId));
}

/** A new snapshot replaces the node's others; a new automatic backup thins out the older ones. */
async function dropSuperseded(job: JobContext, node: NodeRow, backup: BackupRow): Promise<void> {
  const rows = (await findBackupsOfNode(job.trx, node.account_id, node.id)).filter((r) => r.type === backup.type);
  const drop =
    backup.type === 'snapshot'
      ? rows.filter((r) => r.id !== backup.id).map((r) => r.id)
      : automaticBackupsToDrop(
          rows.filter((r) => r.status === 'successful').map((r) => ({ id: r.id, createdMs: Date.parse(`${r.created}Z`) })),
          effectiveSchedule(node.id, node.backups_day, node.backups_window).day,
        );
  await discardBackupCopies(
    job.trx,
    job.ctx,
    rows.filter((r) => drop.includes(r.id)),
  );
  await deleteBackupRows(job.trx, node.account_id, drop);
}

/**
 * Taking a backup: `pending` until the operation starts, `running` (with the node's disks and
 * configs as they are then) until it finishes, then `successful`. Nothing is left to do when the
 * node or the backup has gone meanwhile (deleted, or the service cancelled).
 */
function backupOperation(kind: typeof NODE_OPS.snapshot | typeof NODE_OPS.autoBackup): OperationHandler {
  return {
    kind,
    transition: 'backup',
    work: storeBackupCopies,
    async start(job) {
      const { accountId, nodeId, now } = jobTarget(job);
      const node = await findNode(job.trx, accountId, nodeId);
      const backup = await backupOf(job);
      if (!node || backup?.status !== 'pending') return;
      await updateBackupRow(job.trx, accountId, backup.id, {
        status: 'running',
        content: JSON.stringify(await captureNode(job.trx, node)),
        updated: now,
      });
    },
    async finish(job) {
      const { accountId, nodeId, now } = jobTarget(job);
      const node = await findNode(job.trx, accountId, nodeId);
      const backup = await backupOf(job);
      const done = node !== undefined && backup !== undefined;
      if (done) {
        await updateBackupRow(job.trx, accountId, backup.id, { status: 'successful', finished: now, updated: now });
        await dropSuperseded(job, node, backup);
      }
      await releaseNode(job.trx, accountId, nodeId, {
        kind: BACKUP_BUSY,
        updated: now,
        values: done ? { backups_last_successful: now } : {},
      });
    },
    async fail(job) {
      const { accountId, nodeId, now } = jobTarget(job);
      const backup = await backupOf(job);
      if (backup) await updateBackupRow(job.trx, accountId, backup.id, { status: 'failed', finished: now, updated: now });
      await releaseNode(job.trx, accountId, nodeId, { kind: BACKUP_BUSY, updated: now });
    },
  };
}

const restore = nodeTransition({
  kind: NODE_OPS.restore,
  transition: RESTORE_BUSY,
  from: 'restoring',
  to: () => 'offline',
  failTo: 'offline',
  async finish(job) {
    const { accountId, nodeId, now } = jobTarget(job);
    await markNodeDisksReady(job.trx, accountId, nodeId, now);
  },
  work: restoreBackupCopies,
});

/** Starts an automatic backup unless another operation holds the node (false then). */
async function takeAutomaticBackup(db: Kysely<Database>, ctx: Context, node: NodeRow): Promise<boolean> {
  if (node.busy !== null) return false;
  try {
    await beginBackup(db, ctx, node, { type: 'auto', label: null, actor: null });
    return true;
  } catch (err) {
    // Another operation claimed the node since it was read; nothing has been written.
    if (err instanceof ApiError) return false;
    throw err;
  }
}

/**
 * The daily job of a node with the backup service on: inside the node's window it takes an
 * automatic backup (a busy node is tried again a little later while the window lasts), then queues
 * itself for the next day. It ends when the service is cancelled or the node deleted; a window
 * changed meanwhile is picked up at the next run.
 */
const scheduledBackup: JobHandler = {
  kind: BACKUP_SCHEDULE_JOB,
  async run({ trx, ctx, payload, job }) {
    const node = await findNode(trx, job.account_id ?? 0, Number(payload.nodeId));
    if (node?.backups_enabled !== 1) return;
    const nowMs = ctx.clock.nowMs();
    const { window } = effectiveSchedule(node.id, node.backups_day, node.backups_window);
    await releaseDedupeKey(trx, job.id);
    if (!inWindow(nowMs, window)) {
      await queueScheduledBackup(trx, ctx, node, nowMs);
      return;
    }
    if (await takeAutomaticBackup(trx, ctx, node)) {
      await queueScheduledBackup(trx, ctx, node, nextWindowStart(nowMs, window));
      return;
    }
    const retry = nowMs + BUSY_RETRY_MS;
    await queueScheduledBackup(trx, ctx, node, inWindow(retry, window) ? retry : nextWindowStart(nowMs, window));
  },
};

export const backupOperations: readonly OperationHandler[] = [
  backupOperation(NODE_OPS.snapshot),
  backupOperation(NODE_OPS.autoBackup),
  restore,
];
export const backupJobs: readonly JobHandler[] = [scheduledBackup, ...backupCopyJobs];
