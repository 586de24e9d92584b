import type { Generated } from 'kysely';

export interface ConfigTable {
  id: Generated<number>;
  account_id: number;
  node_id: number;
  label: string;
  kernel: string;
  comments: string | null;
  memory_limit: number;
  run_level: string;
  virt_mode: string;
  root_device: string;
  /** JSON object of the helper flags. */
  helpers: string;
  /** JSON object sda..sdh -> {disk_id, volume_id} | null. */
  devices: string;
  /** JSON array of interfaces (purpose, label, ipam_address). */
  interfaces: string;
  created: string;
  updated: string;
}

declare module '../../../db/database.ts' {
  interface Database {
    configs: ConfigTable;
  }
}
