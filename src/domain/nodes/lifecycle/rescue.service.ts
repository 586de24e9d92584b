import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { buildCommand } from '../../images/image-files.ts';
import { publicImageFiles } from '../../images/public-image-data.ts';
import { assertMemoryFits } from '../compute/host-capacity.ts';
import { RESCUE_RECIPE } from '../compute/machine-change-work.ts';
import { checkDevices, type Devices } from '../configs/config.service.ts';
import { findDisks } from '../disks/disk.repository.ts';
import type { NodeRow } from '../node.repository.ts';
import { assertSettled, claimSettledNode, nodeFor } from '../node-access.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';
import { RESCUE_SLOTS, type RescueNode } from './node-change.schema.ts';

export const RESCUE_BUSY = 'node_rescue';

/** With real nodes, the rescue system must be built here and a node that is off must fit in memory: a 400 otherwise. */
async function assertRescueRuns(db: Kysely<Database>, ctx: Context, node: NodeRow): Promise<void> {
  if (ctx.compute === null) return;
  if ((await publicImageFiles(ctx.blobs, RESCUE_RECIPE)) === null) {
    throw fail.badRequest(
      `The rescue system is not built on this server; an operator builds it with: ${buildCommand(RESCUE_RECIPE)}`,
    );
  }
  if (node.status !== 'running') await assertMemoryFits(db, ctx, { typeId: node.type, nodeId: node.id });
}

/**
 * Boots a settled node into rescue mode with the devices named (the node's disks in order when none
 * are). The reference has no rescue status or event: the node shows `rebooting` and then `running`,
 * reported as node_reboot (node_boot when it was powered off).
 */
export async function rescueNode(ctx: Context, principal: Principal, nodeId: number, body: RescueNode): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    assertSettled(node);
    let devices: Devices;
    if (body.devices) {
      devices = await checkDevices(trx, node, body.devices);
    } else {
      const disks = await findDisks(trx, node.account_id, node.id);
      devices = Object.fromEntries(disks.slice(0, RESCUE_SLOTS.length).map((d, i) => [RESCUE_SLOTS[i], d.id]));
    }
    await assertRescueRuns(trx, ctx, node);
    const action = node.status === 'running' ? 'node_reboot' : 'node_boot';
    await claimSettledNode(trx, node, { busy: RESCUE_BUSY, status: 'rebooting', updated: toTimestamp(ctx.clock.nowMs()) });
    await startNodeOperation(trx, ctx, actorOf(principal), { node, action, kind: NODE_OPS.rescue, payload: { devices } });
  });
}
