import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { BlobStore } from '../../../blob/blob-store.ts';
import type { Context } from '../../../context.ts';
import { STAGING_DIR } from '../../../data-dir.ts';
import type { Database } from '../../../db/database.ts';
import type { JobHandler } from '../../../jobs/handler.ts';
import type { WorkContext } from '../../../jobs/operation.ts';
import { enqueueJob } from '../../../jobs/queue.ts';
import { progressSteps } from '../../../jobs/work-progress.ts';
import { diskKey, machineKey } from '../compute/compute-keys.ts';
import { machineInterfaces } from '../compute/machine-spec.ts';
import { bootMachine, diskSpec, disksWritten, driverOf, SHUTDOWN_GRACE_MS } from '../compute/machine-work.ts';
import { findConfig } from '../configs/config.repository.ts';
import { type DiskRow, findDisk } from '../disks/disk.repository.ts';
import { findNode } from '../node.repository.ts';
import { type BackupRow, findBackup } from './backup.repository.ts';
import { parseContent } from './backup-content.ts';

/**
 * What a backup holds for real when nodes run on a compute driver: a copy of each of the node's
 * disks taken at one point in time, kept in the blob store under `backups/<backup>/` (a disk file,
 * and the kernel and initrd deployed beside it when it has them), as an image's files are.
 */

const DISCARD_JOB = 'backup.discard';

/** The blob keys of one disk's copy in a backup; `diskId` is the disk's id on the backed-up node. */
function copyKeys(backupId: number, diskId: number) {
  const prefix = `backups/${backupId}/disk-${diskId}`;
  return { disk: `${prefix}.img`, kernel: `${prefix}.vmlinuz`, initrd: `${prefix}.initrd.img` };
}

function keysOf(row: BackupRow): string[] {
  return parseContent(row.content).disks.flatMap((d) => Object.values(copyKeys(row.id, d.id)));
}

async function putOrDelete(blobs: BlobStore, key: string, file: string | undefined): Promise<void> {
  if (file === undefined) await blobs.delete(key);
  else await blobs.putFile(key, file);
}

/**
 * The work of a snapshot or an automatic backup: the disks the backup captured, copied while the
 * machine is paused, then moved into the blob store. Done again, it copies them again.
 */
export async function storeBackupCopies(job: WorkContext): Promise<void> {
  const { ctx } = job;
  const accountId = job.job.account_id ?? 0;
  const node = await findNode(ctx.db, accountId, Number(job.payload.nodeId));
  const backup = await findBackup(ctx.db, accountId, Number(job.payload.backupId));
  if (!node || backup?.status !== 'running') return;
  const disks = parseContent(backup.content).disks;
  const staging = path.join(ctx.config.dataDir, STAGING_DIR, `backup-${backup.id}`);
  try {
    const { copies, pausedMs } = await driverOf(job).snapshotDisks(
      machineKey(node.id),
      disks.map((d) => diskKey(d.id)),
      staging,
      // Storing the copies (a rename on the same filesystem, else a copy) is the rest.
      (fraction) => job.progress(fraction * 0.9),
    );
    for (const [index, copy] of copies.entries()) {
      const keys = copyKeys(backup.id, disks[index]?.id ?? 0);
      await ctx.blobs.putFile(keys.disk, copy.disk);
      await putOrDelete(ctx.blobs, keys.kernel, copy.kernel);
      await putOrDelete(ctx.blobs, keys.initrd, copy.initrd);
    }
    ctx.log.info({ node: node.id, backup: backup.id, pausedMs }, 'backup: disks copied');
  } catch (error) {
    // A failed backup holds nothing: what was stored of it goes.
    for (const key of keysOf(backup)) await ctx.blobs.delete(key);
    throw error;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  // Cancelled while the copies were made: the cancel's discard may have run before they were stored.
  if (!(await findBackup(ctx.db, accountId, backup.id))) {
    for (const key of keysOf(backup)) await ctx.blobs.delete(key);
  }
}

/** What a restore writes: each captured disk (its id on the backed-up node) onto a disk of the target. */
export interface RestorePlan {
  backupId: number;
  disks: [from: number, to: number][];
  /** The target's disks an overwrite replaced, whose files go. */
  oldDisks: number[];
  /** The config the target boots after the restore, whose addresses the restored root disks take. */
  configId: number | null;
}

/**
 * The work of a restore: the target's machine stopped, the disks it replaced removed, and each
 * restored disk's files replaced by the backup's copy. A copy that is missing fails the restore.
 */
export async function restoreBackupCopies(job: WorkContext, span: readonly [number, number] = [0, 1]): Promise<void> {
  const { ctx } = job;
  const accountId = job.job.account_id ?? 0;
  const node = await findNode(ctx.db, accountId, Number(job.payload.nodeId));
  if (!node) return;
  const plan = job.payload.plan as RestorePlan;
  const driver = driverOf(job);
  const started = performance.now();
  await driver.stop(machineKey(node.id), { graceMs: SHUTDOWN_GRACE_MS });
  for (const id of plan.oldDisks) await driver.deleteDisk(diskKey(id));
  // The addresses are the target's (a restore to another node), written onto the disks deployed from an image.
  const config = plan.configId === null ? undefined : await findConfig(ctx.db, accountId, node.id, plan.configId);
  const interfaces = await machineInterfaces(ctx.db, node, config ?? null);
  const network = interfaces.flatMap((i) => (i.addresses ? [i.addresses] : []));
  const deployed = new Set(
    parseContent((await findBackup(ctx.db, accountId, plan.backupId))?.content ?? '{}')
      .disks.filter((d) => d.image !== null)
      .map((d) => d.id),
  );
  const restored: [number, DiskRow][] = [];
  for (const [from, to] of plan.disks) {
    const disk = await findDisk(ctx.db, accountId, node.id, to);
    if (disk) restored.push([from, disk]);
  }
  const steps = progressSteps(
    (fraction) => job.progress(fraction),
    restored.map(([, disk]) => disk.size),
    span,
  );
  for (const [i, [from, disk]] of restored.entries()) {
    const keys = copyKeys(plan.backupId, from);
    const file = await ctx.blobs.localPath(keys.disk);
    if (file === null) throw new Error(`backup ${plan.backupId} holds no copy of disk ${from}`);
    const kernel = await ctx.blobs.localPath(keys.kernel);
    const initrd = await ctx.blobs.localPath(keys.initrd);
    const copy = { disk: file, ...(kernel && { kernel }), ...(initrd && { initrd }) };
    await driver.restoreDisk(diskSpec(disk), copy, deployed.has(from) ? network : undefined, steps[i]);
  }
  ctx.log.info({ node: node.id, backup: plan.backupId, ms: Math.round(performance.now() - started) }, 'backup: restored');
}

/**
 * Provisioning a node created from a backup: its disks are the backup's copies, then its machine
 * starts unless created with `booted: false`. Done again after a crash, a machine found running is
 * not written over.
 */
export async function provisionFromBackup(job: WorkContext): Promise<void> {
  const node = await findNode(job.ctx.db, job.job.account_id ?? 0, Number(job.payload.nodeId));
  if (!node) return;
  const span = [0, job.payload.booted !== false ? 0.8 : 1] as const;
  if ((await driverOf(job).state(machineKey(node.id))) !== 'running') {
    await restoreBackupCopies(job, span);
    await disksWritten(job, node);
  }
  if (job.payload.booted !== false) await bootMachine(job);
}

/** Removes the stored copies of backups whose rows go in the caller's transaction (real nodes only). */
export async function discardBackupCopies(db: Kysely<Database>, ctx: Context, rows: readonly BackupRow[]): Promise<void> {
  if (ctx.compute === null || rows.length === 0) return;
  const accountId = rows[0]?.account_id ?? null;
  await enqueueJob(db, ctx.clock, { kind: DISCARD_JOB, accountId, payload: { keys: rows.flatMap(keysOf) } });
  ctx.wakeWorker();
}

const discardCopies: JobHandler = {
  kind: DISCARD_JOB,
  async run({ ctx, payload }) {
    for (const key of payload.keys as string[]) await ctx.blobs.delete(key);
  },
};

export const backupCopyJobs: readonly JobHandler[] = [discardCopies];
