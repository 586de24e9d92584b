import { type Static, Type } from 'typebox';

/** `x` a Unix time in milliseconds (as node stats' points), `y` the value there. */
const Points = Type.Array(Type.Object({ x: Type.Integer(), y: Type.Number() }));

export const ManagedStatsSchema = Type.Object({
  data: Type.Object({ cpu: Points, disk: Points, swap: Points, net_in: Points, net_out: Points }),
});
export type ManagedStats = Static<typeof ManagedStatsSchema>;
export type ManagedStatsPoint = ManagedStats['data']['cpu'][number];
