import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { scheduleOperation } from '../../../jobs/operation.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { type AccountScope, type Actor, actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { recordEvent } from '../../events/event.service.ts';
import { type NodeRow, updateNodeRow } from '../node.repository.ts';
import { claimSettledNode, nodeEntity, nodeFor } from '../node-access.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';
import { type BackupRow, deleteBackupsOfNode, findBackup, findBackupsOfNode, insertBackup } from './backup.repository.ts';
import type { Backup, Backups, BackupType } from './backup.schema.ts';
import { captureNode, contentSize, parseContent } from './backup-content.ts';
import { discardBackupCopies } from './backup-copies.ts';
import { startAutomaticBackups } from './backup-schedule.service.ts';

/** The busy marker (and transition) of a node while one of its backups is taken. */
export const BACKUP_BUSY = 'backup';

export function backupRowToBackup(row: BackupRow): Backup {
  const content = parseContent(row.content);
  return {
    id: row.id,
    region: row.region,
    type: row.type as Backup['type'],
    status: row.status as Backup['status'],
    available: row.status === 'successful',
    created: row.created,
    updated: row.updated,
    finished: row.finished,
    label: row.label,
    configs: content.configs.map((c) => c.label),
    disks: content.disks.map((d) => ({ size: d.size, filesystem: d.filesystem, label: d.label })),
  };
}

/** A backup of the node, or 404. */
export async function existingBackup(db: Kysely<Database>, node: NodeRow, backupId: number): Promise<BackupRow> {
  const row = await findBackup(db, node.account_id, backupId);
  if (!row || row.node_id !== node.id) throw fail.notFound();
  return row;
}

export async function getBackups(ctx: Context, scope: AccountScope, nodeId: number): Promise<Backups> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  const rows = await findBackupsOfNode(ctx.db, node.account_id, node.id);
  const snapshots = rows.filter((r) => r.type === 'snapshot').reverse();
  const current = snapshots.find((r) => r.status === 'successful');
  const inProgress = snapshots.find((r) => r.status === 'pending' || r.status === 'running');
  return {
    automatic: rows.filter((r) => r.type === 'auto').map(backupRowToBackup),
    snapshot: {
      current: current ? backupRowToBackup(current) : null,
      in_progress: inProgress ? backupRowToBackup(inProgress) : null,
    },
  };
}

export async function getBackup(ctx: Context, scope: AccountScope, nodeId: number, backupId: number): Promise<Backup> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  return backupRowToBackup(await existingBackup(ctx.db, node, backupId));
}

/**
 * Starts taking a backup of a settled node, in the caller's transaction: the node is busy while it
 * runs, the backup is `pending` with what the node holds now, and the operation takes it through
 * `running` to `successful` (backup.jobs.ts). A snapshot reports through its node_snapshot event;
 * a scheduled automatic backup is the platform's doing and records none.
 */
export async function beginBackup(
  db: Kysely<Database>,
  ctx: Context,
  node: NodeRow,
  spec: { type: BackupType; label: string | null; actor: Actor | null },
): Promise<BackupRow> {
  const now = toTimestamp(ctx.clock.nowMs());
  await claimSettledNode(db, node, { busy: BACKUP_BUSY, updated: now });
  const content = await captureNode(db, node);
  const row = await insertBackup(db, {
    account_id: node.account_id,
    node_id: node.id,
    type: spec.type,
    status: 'pending',
    label: spec.label,
    region: node.region,
    content: JSON.stringify(content),
    created: now,
    updated: now,
    finished: null,
  });
  const payload = { backupId: row.id };
  if (spec.actor) {
    await startNodeOperation(db, ctx, spec.actor, {
      node,
      action: 'node_snapshot',
      kind: NODE_OPS.snapshot,
      payload,
      dataMb: contentSize(content),
    });
  } else {
    await scheduleOperation(db, ctx, {
      kind: NODE_OPS.autoBackup,
      accountId: node.account_id,
      event: null,
      payload: { ...payload, nodeId: node.id },
    });
  }
  return row;
}

/** Takes a snapshot (the backup service must be on); it replaces the node's previous snapshot once it has succeeded. */
export async function createSnapshot(ctx: Context, principal: Principal, nodeId: number, label: string): Promise<Backup> {
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    if (node.backups_enabled !== 1) {
      throw fail.badRequest('The backup service is not enabled for this node; enable it before taking a snapshot');
    }
    return backupRowToBackup(await beginBackup(trx, ctx, node, { type: 'snapshot', label, actor: actorOf(principal) }));
  });
}

/** Turns the backup service on, with scheduled daily backups (event backups_enable). */
export async function enableBackups(ctx: Context, principal: Principal, nodeId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    await startAutomaticBackups(trx, ctx, node);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'backups_enable', entity: nodeEntity(node) });
  });
}

/**
 * Turns the backup service off and deletes every backup of the node for good (event
 * backups_cancel). The daily job finds the service off and stops; a backup being taken is dropped
 * when its operation ends.
 */
export async function cancelBackups(ctx: Context, principal: Principal, nodeId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    await updateNodeRow(trx, node.account_id, node.id, { backups_enabled: 0, updated: toTimestamp(ctx.clock.nowMs()) });
    await discardBackupCopies(trx, ctx, await findBackupsOfNode(trx, node.account_id, node.id));
    await deleteBackupsOfNode(trx, node.account_id, node.id);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'backups_cancel', entity: nodeEntity(node) });
  });
}
