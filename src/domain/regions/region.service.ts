import type { Context } from '../../context.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { fail } from '../../errors.ts';
import { findRegionById, listRegions, type RegionRow } from './region.repository.ts';
import type { Region } from './region.schema.ts';

export function regionRowToRegion(row: RegionRow): Region {
  return {
    id: row.id,
    country: row.country,
    capabilities: JSON.parse(row.capabilities) as string[],
    status: row.status as Region['status'],
    resolvers: { ipv4: row.resolvers_ipv4, ipv6: row.resolvers_ipv6 },
  };
}

export async function getRegions(ctx: Context, request: PageRequest) {
  return mapPage(await listRegions(ctx.db, request), regionRowToRegion);
}

export async function getRegion(ctx: Context, id: string): Promise<Region> {
  const row = await findRegionById(ctx.db, id);
  if (!row) throw fail.notFound('Region not found');
  return regionRowToRegion(row);
}
