import { type Static, Type } from 'typebox';

export const RegionSchema = Type.Object({
  id: Type.String(),
  country: Type.String(),
  capabilities: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('ok'), Type.Literal('outage')]),
  resolvers: Type.Object({ ipv4: Type.String(), ipv6: Type.String() }),
});
export type Region = Static<typeof RegionSchema>;

export const RegionParams = Type.Object({ regionId: Type.String({ maxLength: 64 }) });
