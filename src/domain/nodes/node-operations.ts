import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { scheduleOperation } from '../../jobs/operation.ts';
import type { Actor } from '../account/principal.ts';
import { recordEvent, type SecondaryRef } from '../events/event.service.ts';
import type { EventAction } from '../events/event-kinds.ts';
import type { NodeRow } from './node.repository.ts';
import { nodeEntity } from './node-access.ts';

/**
 * Job kinds of the timed operations on nodes and disks (handlers in node.jobs.ts, disk.jobs.ts,
 * backup.jobs.ts, clone.jobs.ts and node-change.jobs.ts).
 */
export const NODE_OPS = {
  provision: 'node.provision',
  boot: 'node.boot',
  reboot: 'node.reboot',
  shutdown: 'node.shutdown',
  resize: 'node.resize',
  mutate: 'node.mutate',
  migrate: 'node.migrate',
  rebuild: 'node.rebuild',
  rescue: 'node.rescue',
  clone: 'node.clone',
  snapshot: 'backup.snapshot',
  autoBackup: 'backup.auto',
  restore: 'backup.restore',
  diskCreate: 'disk.create',
  diskClone: 'disk.clone',
  diskResize: 'disk.resize',
  diskDelete: 'disk.delete',
  diskPassword: 'disk.password',
} as const;

export interface NodeOperationSpec {
  node: Pick<NodeRow, 'id' | 'label' | 'account_id'>;
  /** The event the operation reports on; it goes scheduled -> started -> finished as the job runs. */
  action: EventAction;
  kind: string;
  /** Extra job payload; `nodeId` is always added. */
  payload?: Record<string, unknown>;
  /** The other object the event names (the disk, the config booted, the clone's target). */
  secondary?: SecondaryRef | null;
  /** MB the operation copies (a clone, a backup, a disk's duplicate): its event's rate follows from it. */
  dataMb?: number;
}

/**
 * Records the operation's event as scheduled and queues the operation, in the caller's transaction
 * (which has already claimed the node with `claimNode`, or otherwise made the change it follows up).
 */
export async function startNodeOperation(
  db: Kysely<Database>,
  ctx: Context,
  actor: Actor,
  spec: NodeOperationSpec,
): Promise<void> {
  const event = await recordEvent(db, ctx, actor, {
    action: spec.action,
    entity: nodeEntity(spec.node),
    secondary: spec.secondary ?? null,
    status: 'scheduled',
  });
  await scheduleOperation(db, ctx, {
    kind: spec.kind,
    accountId: spec.node.account_id,
    event: { id: event.id, created: event.created, ...(spec.dataMb !== undefined && { dataMb: spec.dataMb }) },
    payload: { ...spec.payload, nodeId: spec.node.id },
  });
}
