import type { Context } from '../../context.ts';
import { mapPage, type Page, type PageRequest } from '../../db/paginate.ts';
import type { AccountScope } from '../account/principal.ts';
import type { Ipv6Pool } from './ipv6.schema.ts';
import { type Ipv6BlockRow, listPools, listRanges } from './ipv6-block.repository.ts';

/*
 * IPv6 pools and ranges are cut from a region's prefix by the operator (an admin action still to
 * come); until then the lists are empty pages.
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
