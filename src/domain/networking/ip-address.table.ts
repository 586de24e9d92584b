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
  /** The address as a number within its pool (offset from the pool start). */
  ordinal: number;
  created: string;
}
