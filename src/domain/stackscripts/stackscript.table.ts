import type { Generated } from 'kysely';

export interface StackScriptTable {
  id: Generated<number>;
  account_id: number;
  username: string;
  label: string;
  description: string;
  /** JSON array of image ids the script deploys to. */
  images: string;
  script: string;
  rev_note: string;
  is_public: number;
  /** JSON array of the UDF fields parsed from the script. */
  user_defined_fields: string;
  deployments_total: number;
  deployments_active: number;
  created: string;
  updated: string;
}

declare module '../../db/database.ts' {
  interface Database {
    stackscripts: StackScriptTable;
  }
}
