import type { Generated } from 'kysely';

export interface VlanTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  region: string;
  created: string;
}

/** A node attached to a VLAN: one row of what the VLAN list is made from (nodes' config interfaces). */
export interface VlanAttachmentRow {
  node_id: number;
  region: string;
  label: string;
}

declare module '../../db/database.ts' {
  interface Database {
    vlans: VlanTable;
  }
}
