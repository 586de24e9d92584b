import { type Static, Type } from 'typebox';
import { IntegerId } from '../../../http/schemas.ts';
import { PATH_VALUE } from '../../../http/validation.ts';

/** `[epoch ms, value]` pairs. */
const Points = Type.Array(Type.Array(Type.Number()));
const Traffic = Type.Object({ in: Points, out: Points, private_in: Points, private_out: Points });

/** A node's figures under `data`, beside their title, as the live service wraps them (clients read `data.cpu`). */
export const NodeStatsSchema = Type.Object({
  title: Type.String(),
  data: Type.Object({
    cpu: Points,
    io: Type.Object({ io: Points, swap: Points }),
    netv4: Traffic,
    netv6: Traffic,
  }),
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

// Year and month are values, not names: out of range they are a 400 naming them.
const Month = Type.Integer({ minimum: 1, maximum: 12, [PATH_VALUE]: true });
export const StatsMonthParams = Type.Object({
  nodeId: IntegerId,
  year: Type.Integer({ minimum: 1970, maximum: 9999, [PATH_VALUE]: true }),
  month: Month,
});
export const TransferMonthParams = Type.Object({
  nodeId: IntegerId,
  year: Type.Integer({ minimum: 2000, maximum: 2037, [PATH_VALUE]: true }),
  month: Month,
});
