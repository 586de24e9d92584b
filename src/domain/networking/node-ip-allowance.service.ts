import type { Context } from '../../context.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { existingNode } from '../nodes/lifecycle/node-faults.service.ts';
import { setIpAllowance } from './ip-allowance.service.ts';

export interface NodeIpAllowance {
  node_id: number;
  public_ipv4: number;
}

/**
 * The operator lets a node hold this many public IPv4 addresses in all (the answer to a support
 * request for more); addresses it already holds beyond a lowered allowance stay. 404 for no such node.
 */
export async function setNodeIpAllowance(ctx: Context, nodeId: number, publicIpv4: number): Promise<NodeIpAllowance> {
  return inTransaction(ctx.db, async (trx) => {
    await lockRows(trx, 'nodes', 'id', [nodeId]);
    const node = await existingNode(trx, nodeId);
    return { node_id: node.id, ...(await setIpAllowance(trx, node, publicIpv4)) };
  });
}
