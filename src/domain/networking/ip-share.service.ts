import type { Context } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type ErrorItem, fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { type Principal, scopeOf } from '../account/principal.ts';
import { nodeNamedIn } from '../nodes/node-access.ts';
import { lockAddressHolders, namedIpv4 } from './address-holders.ts';
import { replaceSharesOfNode } from './ip-share.repository.ts';
import type { ShareIps } from './ips.schema.ts';

/**
 * Sets the public IPv4 addresses a node may bring up besides the nodes holding them: `ips` becomes
 * the node's whole list (an empty one ends every share). Each must be one the caller sees, in the
 * node's region, held by another node.
 */
export async function shareIps(ctx: Context, principal: Principal, body: ShareIps): Promise<void> {
  const named = namedIpv4(body.ips.map((text, i) => ({ text, field: `ips[${i}]` })));
  const scope = scopeOf(principal);
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeNamedIn(trx, scope, body.node_id, 'read_write', 'node_id');
    const rows = await lockAddressHolders(trx, scope, node.region, named, [node.id]);
    const errors: ErrorItem[] = [];
    for (const { address, field } of named) {
      const row = rows.get(address);
      if (row?.public !== 1) errors.push({ field, reason: `${address} is a private address; only public ones are shared` });
      else if (row.node_id === node.id) errors.push({ field, reason: `${address} is node ${node.id}'s own address` });
    }
    if (errors.length > 0) throw fail.invalid(errors);
    const created = toTimestamp(ctx.clock.nowMs());
    await replaceSharesOfNode(
      trx,
      { accountId: node.account_id, nodeId: node.id, region: node.region, created },
      named.map((n) => n.address),
    );
  });
}
