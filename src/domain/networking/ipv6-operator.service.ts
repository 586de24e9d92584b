import type { Context } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { accountExists } from '../account/account.service.ts';
import { anyNodeNamedIn } from '../nodes/node-access.ts';
import { canonicalAddress } from './ip-address.service.ts';
import type { Ipv6Pool, Ipv6Range } from './ipv6.schema.ts';
import { ipv6BlockView } from './ipv6.service.ts';
import { deleteBlock, findBlockStartingAt } from './ipv6-block.repository.ts';
import { cutBlock } from './ipv6-block-ipam.ts';

/*
 * What the operator does with IPv6 blocks (the reference has no public create: a range is asked
 * for by support ticket): route a new range to a node, give an account a pool in a region, take a
 * block back.
 */

export const RANGE_PREFIXES = [64, 56] as const;
export const POOL_PREFIX = 124;

/** Routes a new /64 or /56 range of the node's region to the node. */
export async function addRange(ctx: Context, nodeId: number, prefix: (typeof RANGE_PREFIXES)[number]): Promise<Ipv6Range> {
  return inTransaction(ctx.db, async (trx) => {
    const node = await anyNodeNamedIn(trx, nodeId, 'node_id');
    const region = ctx.catalog.region(node.region);
    if (!region)
      throw fail.badRequest(`Node ${nodeId} is in region ${node.region}, which the catalog no longer offers`, 'node_id');
    const row = await cutBlock(trx, ctx, {
      accountId: node.account_id,
      region,
      kind: 'range',
      nodeId,
      prefix,
      field: 'prefix_length',
    });
    return ipv6BlockView(row);
  });
}

/** A new /124 pool for the account in the region, which every node of the account there reaches. */
export async function addPool(ctx: Context, accountId: number, regionId: string): Promise<Ipv6Pool> {
  const region = ctx.catalog.region(regionId);
  if (!region) throw fail.badRequest(`No region ${regionId}`, 'region');
  if (!(await accountExists(ctx.db, accountId))) throw fail.badRequest(`No account with id ${accountId}`, 'account_id');
  return inTransaction(ctx.db, async (trx) => {
    const row = await cutBlock(trx, ctx, { accountId, region, kind: 'pool', nodeId: null, prefix: POOL_PREFIX, field: 'region' });
    return ipv6BlockView(row);
  });
}

/** Takes back the pool or range that starts at this address (any spelling of it); 404 when none does. */
export async function removeBlock(ctx: Context, range: string): Promise<void> {
  const address = canonicalAddress(range);
  const block = address === null ? undefined : await findBlockStartingAt(ctx.db, address);
  if (!block) throw fail.notFound(`No IPv6 pool or range starts at ${range}`);
  await deleteBlock(ctx.db, block);
}
