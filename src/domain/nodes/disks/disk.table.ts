import type { Generated } from 'kysely';

export interface DiskTable {
  id: Generated<number>;
  account_id: number;
  node_id: number;
  label: string;
  size: number;
  filesystem: string;
  status: string;
  /** The image the disk was deployed from, if any. */
  image: string | null;
  created: string;
  updated: string;
}

declare module '../../../db/database.ts' {
  interface Database {
    disks: DiskTable;
  }
}
