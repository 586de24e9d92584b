export interface RegionTable {
  id: string;
  label: string;
  country: string;
  /** JSON array of capability names. */
  capabilities: string;
  resolvers_ipv4: string;
  resolvers_ipv6: string;
  status: string;
  site_type: string;
  /** What the region's nodes show as `host_uuid` (Catalog.hostUuid). */
  host_uuid: string;
  sort: number;
}

export interface NodeTypeTable {
  id: string;
  label: string;
  class: string;
  disk: number;
  memory: number;
  vcpus: number;
  gpus: number;
  transfer: number;
  network_out: number;
  price_hourly: number;
  price_monthly: number;
  backups_price_hourly: number;
  backups_price_monthly: number;
  successor: string | null;
  sort: number;
}

export interface KernelTable {
  id: string;
  label: string;
  version: string;
  kvm: number;
  xen: number;
  architecture: string;
  pvops: number;
  deprecated: number;
  built: string;
  sort: number;
}

declare module '../../db/database.ts' {
  interface Database {
    regions: RegionTable;
    node_types: NodeTypeTable;
    kernels: KernelTable;
  }
}
