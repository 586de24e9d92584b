import type { Generated } from 'kysely';

export interface VlanTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  region: string;
  created: string;
}
