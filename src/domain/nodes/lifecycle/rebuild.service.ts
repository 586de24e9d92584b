import type { Context } from '../../../context.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { releaseStackScriptDeployment } from '../../stackscripts/stackscript-deploy.ts';
import { assertMemoryFits } from '../compute/host-capacity.ts';
import { deleteConfigsOfNode, findConfigs } from '../configs/config.repository.ts';
import type { Interface } from '../configs/config.schema.ts';
import { deleteDisksOfNode, findDisks } from '../disks/disk.repository.ts';
import { findNode } from '../node.repository.ts';
import type { Node } from '../node.schema.ts';
import { toNode } from '../node.service.ts';
import { claimSettledNode, nodeFor } from '../node-access.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';
import { buildNode, resolveNodeSource } from '../node-source.ts';
import type { RebuildNode } from './node-change.schema.ts';

export const REBUILD_BUSY = 'node_rebuild';

/**
 * Rebuilds a settled node from an image (event node_rebuild): its disks and configs are deleted and
 * made again as node creation makes them (a main disk, a swap disk and a config, keeping the network
 * interfaces of the config it booted last), with the new root password and StackScript; the node
 * is `rebuilding` until they are written, then running (or offline with `booted: false`).
 */
export async function rebuildNode(ctx: Context, principal: Principal, nodeId: number, body: RebuildNode): Promise<Node> {
  const scope = scopeOf(principal);
  const current = await nodeFor(ctx.db, scope, nodeId, 'read_write');
  const type = ctx.catalog.type(current.type);
  if (!type) throw fail.badRequest(`The node's type ${current.type} is no longer offered`, 'type');
  const source = await resolveNodeSource(ctx.db, ctx, scope, { ...body, region: current.region, type: current.type }, type);
  if (source.kind !== 'image') throw fail.badRequest('A rebuild needs an image', 'image');
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scope, nodeId, 'read_write');
    const configs = await findConfigs(trx, node.account_id, node.id);
    const kept = configs.find((c) => c.id === node.last_booted_config_id) ?? configs[0];
    if (body.booted !== false) await assertMemoryFits(trx, ctx, { typeId: node.type, nodeId: node.id });
    const oldDisks = (await findDisks(trx, node.account_id, node.id)).map((d) => d.id);
    await claimSettledNode(trx, node, {
      busy: REBUILD_BUSY,
      status: 'rebuilding',
      image: source.deployment.image.id,
      stackscript_id: source.deployment.stackscriptId,
      root_pass_hash: source.deployment.rootPassHash,
      last_booted_config_id: null,
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    if (node.stackscript_id !== null) await releaseStackScriptDeployment(trx, node.stackscript_id);
    await deleteConfigsOfNode(trx, node.account_id, node.id);
    await deleteDisksOfNode(trx, node.account_id, node.id);
    const interfaces = kept ? (JSON.parse(kept.interfaces) as Interface[]) : [];
    const { configId } = await buildNode(trx, ctx, node, source, interfaces);
    await startNodeOperation(trx, ctx, actorOf(principal), {
      node,
      action: 'node_rebuild',
      kind: NODE_OPS.rebuild,
      payload: { configId, booted: body.booted ?? true, deploy: source.deployment.access, oldDisks },
    });
    return toNode(trx, ctx, (await findNode(trx, node.account_id, node.id)) ?? node);
  });
}
