import type { Context } from '../../context.ts';
import { existingNode } from '../nodes/lifecycle/node-faults.service.ts';
import { findEnabledFirewallOfNode } from './firewall-device.repository.ts';
import { renderNftables } from './firewall-nftables.ts';
import { rulesOf } from './firewall-view.ts';

export interface NodeNftables {
  node_id: number;
  firewall_id: number | null;
  ruleset: string;
}

/**
 * A node's effective firewall (its one enabled firewall, or none) as an nftables ruleset, for the
 * operator; rendered from the current state on each read, so a rules PUT, a device removed or a
 * firewall disabled or deleted shows at once. 404 for no such node.
 */
export async function getNodeNftables(ctx: Context, nodeId: number): Promise<NodeNftables> {
  const node = await existingNode(ctx.db, nodeId);
  const row = await findEnabledFirewallOfNode(ctx.db, node.account_id, node.id);
  const firewall = row ? { id: row.id, label: row.label, rules: rulesOf(row) } : null;
  return { node_id: node.id, firewall_id: firewall?.id ?? null, ruleset: renderNftables(node, firewall) };
}
