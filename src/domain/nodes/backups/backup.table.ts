import type { Generated } from 'kysely';

export interface BackupTable {
  id: Generated<number>;
  account_id: number;
  node_id: number;
  type: string;
  status: string;
  label: string | null;
  region: string;
  /** JSON NodeContent (backup-content.ts): the disks (label, size, filesystem, image) and full configs captured, for restores. */
  content: string;
  created: string;
  updated: string;
  finished: string | null;
}

declare module '../../../db/database.ts' {
  interface Database {
    backups: BackupTable;
  }
}
