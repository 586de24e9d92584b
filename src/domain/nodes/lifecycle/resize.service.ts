import type { Context } from '../../../context.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { recordEvent } from '../../events/event.service.ts';
import type { EventAction } from '../../events/event-kinds.ts';
import { assertDiskFits } from '../compute/disk-capacity.ts';
import { assertMemoryFits } from '../compute/host-capacity.ts';
import { dataDiskGrowth } from '../disks/data-disk-growth.ts';
import { sumDiskSizes } from '../disks/disk.repository.ts';
import { assertSettled, claimSettledNode, nodeEntity, nodeFor } from '../node-access.ts';
import { placement } from '../node-create.service.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';
import { bootConfigAfter } from './node-lifecycle.service.ts';

/**
 * The reference's statuses have no "resizing": a resize moves the node to a host with the new
 * type's resources, so it shows `migrating` meanwhile, as a migration does.
 */
export const RESIZING_STATUS = 'migrating';

const CHANGES = {
  resize: { kind: NODE_OPS.resize, busy: 'node_resize', create: 'node_resize_create', action: 'node_resize' },
  mutate: { kind: NODE_OPS.mutate, busy: 'node_mutate', create: 'node_mutate_create', action: 'node_mutate' },
} as const satisfies Record<string, { kind: string; busy: string; create: EventAction; action: EventAction }>;

/** Where a node goes back to after an operation that took it down: running if it ran, offline otherwise. */
export function powerAfter(status: string): 'running' | 'offline' {
  return status === 'running' ? 'running' : 'offline';
}

/**
 * Moves a settled node to another type through a timed operation: the request is recorded
 * (`…_create`, finished) and the operation's own event follows it. The node's disks must fit the new
 * type (400 naming type otherwise); the type and specs change when the operation finishes, and with
 * `allow_auto_disk_resize` a node with one data disk has it grown into the added space.
 */
async function changeType(
  ctx: Context,
  principal: Principal,
  nodeId: number,
  spec: { typeId: (current: string) => string; autoResize: boolean; change: keyof typeof CHANGES },
): Promise<void> {
  const change = CHANGES[spec.change];
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    assertSettled(node);
    const { type } = placement(ctx, node.region, spec.typeId(node.type));
    if (type.id === node.type) throw fail.badRequest(`The node is already of type ${type.id}`, 'type');
    const used = await sumDiskSizes(trx, node.account_id, node.id);
    if (used > type.disk) {
      throw fail.badRequest(
        `The node's disks take ${used} MB and type ${type.id} has ${type.disk} MB; delete or shrink disks first`,
        'type',
      );
    }
    const bootAfter = await bootConfigAfter(trx, ctx, node);
    if (bootAfter.configId !== undefined) await assertMemoryFits(trx, ctx, { typeId: type.id, nodeId: node.id });
    const growth = spec.autoResize ? await dataDiskGrowth(trx, node, type.disk) : null;
    if (growth) {
      const sizeMb = growth.sizeMb - growth.disk.size;
      await assertDiskFits(trx, ctx, { sizeMb, field: 'allow_auto_disk_resize', nodeId: node.id });
    }
    await claimSettledNode(trx, node, { busy: change.busy, status: RESIZING_STATUS, updated: toTimestamp(ctx.clock.nowMs()) });
    const actor = actorOf(principal);
    await recordEvent(trx, ctx, actor, { action: change.create, entity: nodeEntity(node) });
    await startNodeOperation(trx, ctx, actor, {
      node,
      action: change.action,
      kind: change.kind,
      payload: { type: type.id, autoResize: spec.autoResize, returnsTo: powerAfter(node.status), ...bootAfter },
    });
  });
}

export async function resizeNode(ctx: Context, principal: Principal, nodeId: number, typeId: string, autoResize = true) {
  await changeType(ctx, principal, nodeId, { typeId: () => typeId, autoResize, change: 'resize' });
}

/** Moves a node of a superseded type to the type's successor; a type without one is a 400. */
export async function mutateNode(ctx: Context, principal: Principal, nodeId: number, autoResize = true) {
  const successor = (current: string) => {
    const next = ctx.catalog.type(current)?.successor ?? null;
    if (next === null) throw fail.badRequest(`Type ${current} has no successor to upgrade to`, 'type');
    return next;
  };
  await changeType(ctx, principal, nodeId, { typeId: successor, autoResize, change: 'mutate' });
}
