/** The API's objects the node page's parts show, as far as they use them. */

export interface NodeInfo {
  id: number;
  label: string;
  status: string;
  region: string;
  specs: { disk: number; memory: number; vcpus: number };
  backups: { enabled: boolean; last_successful: string | null };
}

export interface Disk {
  id: number;
  label: string;
  size: number;
  filesystem: string;
  status: string;
  created: string;
}

export const DEVICE_SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg', 'sdh'] as const;
export type Slot = (typeof DEVICE_SLOTS)[number];

export const HELPERS = ['updatedb_disabled', 'distro', 'modules_dep', 'network', 'devtmpfs_automount'] as const;
export type Helper = (typeof HELPERS)[number];

export interface Config {
  id: number;
  label: string;
  kernel: string;
  comments: string | null;
  memory_limit: number;
  run_level: 'default' | 'single' | 'binbash';
  virt_mode: 'paravirt' | 'fullvirt';
  helpers: Record<Helper, boolean>;
  devices: Record<Slot, { disk_id: number } | null>;
  root_device: string;
}

export interface Backup {
  id: number;
  type: 'auto' | 'snapshot';
  status: string;
  label: string | null;
  created: string;
  finished: string | null;
  disks: { label: string; size: number }[];
}

export interface Backups {
  automatic: Backup[];
  snapshot: { current: Backup | null; in_progress: Backup | null };
}

export interface Address {
  address: string;
  prefix: number;
  public: boolean;
  type: string;
  rdns: string | null;
  gateway: string | null;
}

export interface Range {
  range: string;
  prefix: number;
  route_target: string | null;
}

export interface NodeIps {
  ipv4: { public: Address[]; private: Address[]; shared: Address[]; reserved: Address[] };
  ipv6: { slaac: Address; link_local: Address; global: Range[] };
}

/** `[epoch ms, value]` pairs. */
export type Points = number[][];
interface Traffic {
  in: Points;
  out: Points;
  private_in: Points;
  private_out: Points;
}
/** A node's figures, under `data` beside their title as the API answers them. */
export interface NodeStats {
  title: string;
  data: {
    cpu: Points;
    io: { io: Points; swap: Points };
    netv4: Traffic;
    netv6: Traffic;
  };
}
