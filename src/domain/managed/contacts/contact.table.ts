import type { Generated } from 'kysely';

export interface ManagedContactTable {
  id: Generated<number>;
  account_id: number;
  /** Null until given: no field of a contact is required. */
  name: string | null;
  email: string | null;
  phone_primary: string | null;
  phone_secondary: string | null;
  /** The `group` field (a reserved word in SQL). */
  contact_group: string | null;
  created: string;
  updated: string;
}

declare module '../../../db/database.ts' {
  interface Database {
    managed_contacts: ManagedContactTable;
  }
}
