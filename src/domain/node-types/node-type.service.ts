import type { Context } from '../../context.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { fail } from '../../errors.ts';
import { findNodeTypeById, listNodeTypes, type NodeTypeRow } from './node-type.repository.ts';
import type { NodeType } from './node-type.schema.ts';

export function nodeTypeRowToNodeType(row: NodeTypeRow): NodeType {
  return {
    id: row.id,
    label: row.label,
    disk: row.disk,
    class: row.class as NodeType['class'],
    price: { hourly: row.price_hourly, monthly: row.price_monthly },
    region_prices: [],
    addons: { backups: { price: { hourly: row.backups_price_hourly, monthly: row.backups_price_monthly }, region_prices: [] } },
    network_out: row.network_out,
    memory: row.memory,
    successor: row.successor,
    transfer: row.transfer,
    vcpus: row.vcpus,
    gpus: row.gpus,
  };
}

export async function getNodeTypes(ctx: Context, request: PageRequest) {
  return mapPage(await listNodeTypes(ctx.db, request), nodeTypeRowToNodeType);
}

export async function getNodeType(ctx: Context, id: string): Promise<NodeType> {
  const row = await findNodeTypeById(ctx.db, id);
  if (!row) throw fail.notFound();
  return nodeTypeRowToNodeType(row);
}
