import type { ForwardedPort } from '../../../compute/driver.ts';
import type { Context } from '../../../context.ts';
import { fail } from '../../../errors.ts';
import { existingNode } from '../lifecycle/node-faults.service.ts';
import { machineKey } from './compute-keys.ts';

export interface NodePorts {
  node_id: number;
  /** Host ports that reach the node's guest ports (user networking); none in bridge mode, where its addresses are reached. */
  ports: ForwardedPort[];
}

/** Where the operator reaches a node's guest ports from the host: 404 for no such node, 400 when nodes are simulated. */
export async function getNodePorts(ctx: Context, nodeId: number): Promise<NodePorts> {
  const node = await existingNode(ctx.db, nodeId);
  if (ctx.compute === null)
    throw fail.badRequest('Nodes are simulated on this server: no node has ports (CUMULO_COMPUTE=qemu runs real ones)');
  return { node_id: node.id, ports: [...ctx.compute.ports(machineKey(node.id))] };
}
