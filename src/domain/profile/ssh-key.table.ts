import type { Generated } from 'kysely';

export interface SshKeyTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  label: string;
  ssh_key: string;
  created: string;
}

declare module '../../db/database.ts' {
  interface Database {
    ssh_keys: SshKeyTable;
  }
}
