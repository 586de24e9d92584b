export interface IpAddressTable {
  address: string;
  account_id: number;
  node_id: number | null;
  region: string;
  type: string;
  public: number;
  prefix: number;
  gateway: string | null;
  subnet_mask: string;
  rdns: string | null;
  /** The address's index among its pool's usable addresses (see ipam.ts); unique per pool. */
  ordinal: number;
  created: string;
}

declare module '../../db/database.ts' {
  interface Database {
    ip_addresses: IpAddressTable;
  }
}
