import type { Context } from '../../context.ts';
import { mapPage, type Page, type PageRequest } from '../../db/paginate.ts';
import type { AccountScope } from '../account/principal.ts';
import type { Ipv6Pool } from './ipv6.schema.ts';
import { type Ipv6BlockRow, listPools, listRanges } from './ipv6-block.repository.ts';

/*
 * The account's IPv6 pools and ranges, which the operator cuts from a region's prefix
 * (ipv6-operator.service.ts). `route_target` is a block's last address.
 */

export function ipv6BlockView(row: Ipv6BlockRow): Ipv6Pool {
  return { range: row.range, prefix: row.prefix, region: row.region, route_target: row.route_target };
}

export async function getPools(ctx: Context, scope: AccountScope, request: PageRequest): Promise<Page<Ipv6Pool>> {
  return mapPage(await listPools(ctx.db, scope, request), ipv6BlockView);
}

export async function getRanges(ctx: Context, scope: AccountScope, request: PageRequest): Promise<Page<Ipv6Pool>> {
  return mapPage(await listRanges(ctx.db, scope, request), ipv6BlockView);
}
