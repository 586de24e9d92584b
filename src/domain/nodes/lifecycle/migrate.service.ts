import type { Context } from '../../../context.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { ApiError, fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { recordEvent } from '../../events/event.service.ts';
import { assertHostServes, assertMemoryFits } from '../compute/host-capacity.ts';
import { findConfigs } from '../configs/config.repository.ts';
import type { Interface } from '../configs/config.schema.ts';
import { sumDiskSizes } from '../disks/disk.repository.ts';
import { assertSettled, claimSettledNode, nodeEntity, nodeFor } from '../node-access.ts';
import { placement } from '../node-create.service.ts';
import { checkInterfaces } from '../node-interfaces.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';
import type { MigrateNode } from './node-change.schema.ts';
import { bootConfigAfter } from './node-lifecycle.service.ts';
import { powerAfter } from './resize.service.ts';

export const MIGRATE_BUSY = 'node_migrate';

/**
 * Migrates a settled node (status `migrating`, taken down and brought back as it was). With a
 * `region` it moves there (events node_migrate_datacenter_create, then node_migrate_datacenter):
 * the region must take the node's type and its configs' interfaces, and when the operation ends the
 * node has new addresses from that region's pools. `upgrade` moves it to its type's successor on the
 * way (400 when there is none). Without a region the node is migrated within its region (node_migrate).
 */
export async function migrateNode(ctx: Context, principal: Principal, nodeId: number, body: MigrateNode): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    assertSettled(node);
    const actor = actorOf(principal);
    const claim = { busy: MIGRATE_BUSY, status: 'migrating', updated: toTimestamp(ctx.clock.nowMs()) };
    const returnsTo = powerAfter(node.status);
    const bootAfter = await bootConfigAfter(trx, ctx, node);
    if (body.region === undefined) {
      if (body.upgrade) throw fail.badRequest('upgrade applies only to a migration to another region', 'upgrade');
      await claimSettledNode(trx, node, claim);
      await startNodeOperation(trx, ctx, actor, {
        node,
        action: 'node_migrate',
        kind: NODE_OPS.migrate,
        payload: { returnsTo, ...bootAfter },
      });
      return;
    }
    if (body.region === node.region) throw fail.badRequest(`The node is already in region ${node.region}`, 'region');
    let typeId = node.type;
    if (body.upgrade) {
      const successor = ctx.catalog.type(node.type)?.successor ?? null;
      if (successor === null) throw fail.badRequest(`Type ${node.type} has no free upgrade`, 'upgrade');
      typeId = successor;
    }
    const { region, type } = placement(ctx, body.region, typeId);
    if ((await sumDiskSizes(trx, node.account_id, node.id)) > type.disk) {
      throw fail.badRequest(`The node's disks do not fit type ${type.id}`, 'upgrade');
    }
    for (const config of await findConfigs(trx, node.account_id, node.id)) {
      try {
        checkInterfaces(JSON.parse(config.interfaces) as Interface[], region);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        throw fail.badRequest(`Config ${config.label} cannot move to region ${region.id}: ${err.errors[0]?.reason}`, 'region');
      }
    }
    await assertHostServes(trx, ctx, node.id, region.id);
    if (bootAfter.configId !== undefined && type.id !== node.type)
      await assertMemoryFits(trx, ctx, { typeId: type.id, nodeId: node.id });
    await claimSettledNode(trx, node, claim);
    await recordEvent(trx, ctx, actor, { action: 'node_migrate_datacenter_create', entity: nodeEntity(node) });
    await startNodeOperation(trx, ctx, actor, {
      node,
      action: 'node_migrate_datacenter',
      kind: NODE_OPS.migrate,
      payload: { returnsTo, region: region.id, type: type.id, ...bootAfter },
    });
  });
}
