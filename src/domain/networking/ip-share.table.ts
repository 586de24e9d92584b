/** A public IPv4 address shared with a node other than the one holding it. */
export interface IpShareTable {
  region: string;
  address: string;
  account_id: number;
  /** The node the address is shared with. */
  node_id: number;
  created: string;
}

declare module '../../db/database.ts' {
  interface Database {
    ip_shares: IpShareTable;
  }
}
