import type { Generated } from 'kysely';

export interface AccountTable {
  id: Generated<number>;
  euuid: string;
  email: string;
  first_name: string;
  last_name: string;
  company: string;
  address_1: string;
  address_2: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  phone: string;
  tax_id: string;
  balance: number;
  balance_uninvoiced: number;
  active_since: string;
  created: string;
}

declare module '../../db/database.ts' {
  interface Database {
    accounts: AccountTable;
  }
}
