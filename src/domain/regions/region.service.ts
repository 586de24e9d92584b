import type { Context } from '../../context.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { fail } from '../../errors.ts';
import { findRegionById, listRegions, type RegionRow } from './region.repository.ts';
import type { Region } from './region.schema.ts';

export function regionRowToRegion(row: RegionRow): Region {
  return {
    id: row.id,
    label: row.label,
    country: row.country,
    capabilities: JSON.parse(row.capabilities) as string[],
    status: row.status as Region['status'],
    resolvers: { ipv4: row.resolvers_ipv4, ipv6: row.resolvers_ipv6 },
    site_type: row.site_type as Region['site_type'],
    placement_group_limits: { maximum_pgs_per_customer: 0, maximum_nodes_per_pg: 0, maximum_nodes_per_flexible_pg: 0 },
    monitors: { alerts: [], metrics: [] },
  };
}

export async function getRegions(ctx: Context, request: PageRequest) {
  return mapPage(await listRegions(ctx.db, request), regionRowToRegion);
}

export async function getRegion(ctx: Context, id: string): Promise<Region> {
  const row = await findRegionById(ctx.db, id);
  if (!row) throw fail.notFound();
  return regionRowToRegion(row);
}
