import { type Static, Type } from 'typebox';
import { IntegerId } from '../../http/schemas.ts';

/** `[epoch ms, value]` pairs. */
const Points = Type.Array(Type.Array(Type.Number()));
const Traffic = Type.Object({ in: Points, out: Points, private_in: Points, private_out: Points });

export const NodeStatsSchema = Type.Object({
  cpu: Points,
  io: Type.Object({ io: Points, swap: Points }),
  netv4: Traffic,
  netv6: Traffic,
  title: Type.String(),
});
export type NodeStats = Static<typeof NodeStatsSchema>;

export const NodeTransferSchema = Type.Object({ used: Type.Integer(), quota: Type.Integer(), billable: Type.Integer() });
export type NodeTransfer = Static<typeof NodeTransferSchema>;

export const NodeTransferMonthSchema = Type.Object({
  bytes_in: Type.Integer(),
  bytes_out: Type.Integer(),
  bytes_total: Type.Integer(),
});
export type NodeTransferMonth = Static<typeof NodeTransferMonthSchema>;

const Month = Type.Integer({ minimum: 1, maximum: 12 });
export const StatsMonthParams = Type.Object({
  nodeId: IntegerId,
  year: Type.Integer({ minimum: 1970, maximum: 9999 }),
  month: Month,
});
export const TransferMonthParams = Type.Object({
  nodeId: IntegerId,
  year: Type.Integer({ minimum: 2000, maximum: 2037 }),
  month: Month,
});
