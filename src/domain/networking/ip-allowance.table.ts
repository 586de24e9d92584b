export interface IpAllowanceTable {
  node_id: number;
  account_id: number;
  /** Public IPv4 addresses the node may hold in all, set by the operator; a node without a row may hold one. */
  public_ipv4: number;
}

declare module '../../db/database.ts' {
  interface Database {
    ip_allowances: IpAllowanceTable;
  }
}
