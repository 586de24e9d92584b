import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { lockName } from '../../db/row-locks.ts';
import { fail } from '../../errors.ts';
import { type Block, blockAt, firstFreeBlock, formatAddress, lastAddressOf, parseCidr } from '../../net/cidr.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import type { RegionDataT } from '../catalog/catalog.ts';
import { ipv6PrefixOf } from './ipam.ts';
import { findBlockExtentsInRegion, type Ipv6BlockRow, insertBlock } from './ipv6-block.repository.ts';

/**
 * IPv6 pools and ranges are cut from the region's `ipv6_prefix` beside its SLAAC /64 (the prefix's
 * first): each block is the lowest free one of its size, aligned on that size, overlapping neither
 * the SLAAC network nor a block of any account.
 */

export interface BlockRequest {
  accountId: number;
  region: RegionDataT;
  kind: 'pool' | 'range';
  /** The node a range is routed to; null for a pool. */
  nodeId: number | null;
  prefix: number;
  /** The request field a full prefix is reported on. */
  field: string;
}

function extentOf(row: { range: string; prefix: number }): Block {
  const block = parseCidr(`${row.range}/${row.prefix}`);
  if (!block) throw new Error(`ipv6_blocks holds ${row.range}/${row.prefix}, which is not a network`);
  return block;
}

/**
 * Cuts a block in the caller's transaction. Blocks of different sizes can overlap without sharing a
 * first address, so no unique key can keep two concurrent cuts apart: they take turns on the region
 * (a named lock on PostgreSQL; SQLite has one writer), each reading what the one before cut.
 */
export async function cutBlock(db: Kysely<Database>, ctx: Context, request: BlockRequest): Promise<Ipv6BlockRow> {
  const { region } = request;
  await lockName(db, `ipv6_blocks ${region.id}`);
  const prefix = ipv6PrefixOf(region);
  const slaac = blockAt(6, prefix.first, 64);
  const taken = (await findBlockExtentsInRegion(db, region.id)).map(extentOf);
  const block = firstFreeBlock(prefix, [slaac, ...taken], request.prefix);
  if (!block) {
    throw fail.badRequest(
      `Region ${region.id} has no /${request.prefix} left in its IPv6 prefix ${region.ipv6_prefix}`,
      request.field,
    );
  }
  return insertBlock(db, {
    region: region.id,
    range: formatAddress(6, block.first),
    prefix: block.prefix,
    account_id: request.accountId,
    kind: request.kind,
    node_id: request.nodeId,
    route_target: formatAddress(6, lastAddressOf(block)),
    created: toTimestamp(ctx.clock.nowMs()),
  });
}
