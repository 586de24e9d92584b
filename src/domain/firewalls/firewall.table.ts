import type { Generated } from 'kysely';

export interface FirewallTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  /** `enabled` or `disabled`; a deleted firewall has no row. */
  status: string;
  /** JSON of the whole ruleset as the API shows it: inbound, outbound and both policies. */
  rules: string;
  /** 1 when made, one more with each rules update. */
  rules_version: Generated<number>;
  created: string;
  updated: string;
}

/** Assigns a firewall to a node; a node holds any number of these, at most one of an enabled firewall. */
export interface FirewallDeviceTable {
  id: Generated<number>;
  account_id: number;
  firewall_id: number;
  node_id: number;
  created: string;
  updated: string;
}

declare module '../../db/database.ts' {
  interface Database {
    firewalls: FirewallTable;
    firewall_devices: FirewallDeviceTable;
  }
}
