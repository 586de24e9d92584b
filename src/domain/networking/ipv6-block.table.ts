export interface Ipv6BlockTable {
  region: string;
  /** The block's first address, in canonical form. */
  range: string;
  prefix: number;
  account_id: number;
  kind: 'pool' | 'range';
  /** The node a range is routed to; null for a pool, which every node of the account in the region reaches. */
  node_id: number | null;
  route_target: string | null;
  created: string;
}

declare module '../../db/database.ts' {
  interface Database {
    ipv6_blocks: Ipv6BlockTable;
  }
}
