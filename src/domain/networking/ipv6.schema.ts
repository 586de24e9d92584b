import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';

const block = {
  range: Type.String(),
  prefix: Type.Integer(),
  region: Type.String(),
  // The last address of the block.
  route_target: Nullable(Type.String()),
};

/** A /124 of the region's IPv6 prefix routed to every node of the account in that region. */
export const Ipv6PoolSchema = Type.Object(block);
export type Ipv6Pool = Static<typeof Ipv6PoolSchema>;

/** A /64 or /56 of the region's IPv6 prefix routed to one node. */
export const Ipv6RangeSchema = Type.Object(block);
export type Ipv6Range = Static<typeof Ipv6RangeSchema>;
