import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { moveNodeAddresses } from '../../networking/node-addresses.service.ts';
import { findConfigs } from '../configs/config.repository.ts';
import type { Interface } from '../configs/config.schema.ts';
import { findNode, updateNodeRow } from '../node.repository.ts';
import { attachVlans } from '../node-interfaces.ts';

/**
 * A node migrated to another region ends up there: its addresses go back to the old region's pools
 * and it gets new ones (a private address again if it had one), its configs' VLANs are attached in
 * the new region, and an upgrade's type takes effect. A node already there only takes the type, so
 * real work that moved it before booting it (machine-change-work.ts) and the operation's finish may both call it.
 */
export async function moveNodeToRegion(
  db: Kysely<Database>,
  ctx: Context,
  move: { accountId: number; nodeId: number; regionId: string; typeId: string | null; now: string },
): Promise<void> {
  const { accountId, nodeId } = move;
  const region = ctx.catalog.region(move.regionId);
  const node = await findNode(db, accountId, nodeId);
  if (!region || !node) return;
  const type = move.typeId ?? node.type;
  if (node.region === region.id) {
    if (node.type !== type) await updateNodeRow(db, accountId, nodeId, { type });
    return;
  }
  const ipv6 = await moveNodeAddresses(db, ctx, { accountId, nodeId }, region);
  for (const config of await findConfigs(db, accountId, nodeId)) {
    await attachVlans(db, accountId, region.id, JSON.parse(config.interfaces) as Interface[], move.now);
  }
  await updateNodeRow(db, accountId, nodeId, { region: region.id, ipv6, type });
}
