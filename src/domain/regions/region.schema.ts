import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';

export const RegionSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  country: Type.String(),
  capabilities: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('ok'), Type.Literal('outage')]),
  resolvers: Type.Object({ ipv4: Type.String(), ipv6: Type.String() }),
  site_type: Type.Union([Type.Literal('core'), Type.Literal('distributed')]),
  // Placement groups and the metrics and alerts services are not offered: limits of none, lists of none.
  placement_group_limits: Type.Object({
    maximum_pgs_per_customer: Nullable(Type.Integer()),
    maximum_nodes_per_pg: Type.Integer(),
    maximum_nodes_per_flexible_pg: Type.Integer(),
  }),
  monitors: Type.Object({ alerts: Type.Array(Type.String()), metrics: Type.Array(Type.String()) }),
});
export type Region = Static<typeof RegionSchema>;

export const RegionParams = Type.Object({ regionId: Type.String({ maxLength: 64 }) });
