import type { Generated } from 'kysely';

export interface BackupTable {
  id: Generated<number>;
  account_id: number;
  node_id: number;
  type: string;
  status: string;
  label: string | null;
  region: string;
  /** JSON {disks: [{label,size,filesystem,image}], configs: [full config rows]} captured for restores. */
  content: string;
  created: string;
  updated: string;
  finished: string | null;
}
