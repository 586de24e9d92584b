/** A node's managed SSH settings, once changed from the defaults. */
export interface ManagedNodeSettingsTable {
  node_id: number;
  account_id: number;
  /** 1 when the provider's staff may log in over SSH. */
  ssh_access: number;
  ssh_user: string;
  /** `any`, or one of the node's addresses in canonical form. */
  ssh_ip: string;
  ssh_port: number;
  updated: string;
}

declare module '../../../db/database.ts' {
  interface Database {
    managed_node_settings: ManagedNodeSettingsTable;
  }
}
