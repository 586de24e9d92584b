import type { Generated } from 'kysely';

export interface NodeTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  /** The deprecated `group` field; `group` is a reserved word in SQL. */
  node_group: string;
  region: string;
  type: string;
  image: string | null;
  /** The StackScript the node was deployed with, if any. */
  stackscript_id: number | null;
  status: string;
  hypervisor: string;
  ipv6: string | null;
  alerts_cpu: number;
  alerts_io: number;
  alerts_network_in: number;
  alerts_network_out: number;
  alerts_transfer_quota: number;
  backups_enabled: number;
  backups_day: string | null;
  backups_window: string | null;
  backups_last_successful: string | null;
  watchdog_enabled: number;
  /** JSON array of service-clock ms of recent watchdog boots. */
  watchdog_boots: string;
  last_booted_config_id: number | null;
  /** The kind of operation in progress; null when the node is settled. */
  busy: string | null;
  /** Clone operations from this node under way (a node may be the source of several at once). */
  clones_running: Generated<number>;
  root_pass_hash: string | null;
  /** The compute host (agent) the node is placed on; null when nodes run in the API's own process or are simulated. */
  host: string | null;
  /** The node's tags, by name, as a JSON array; written by the database (migration 0025), never by the service. */
  tag_list: Generated<string>;
  /** The node's IPv4 addresses in view order, as a JSON array; written by the database, like tag_list. */
  ipv4_list: Generated<string>;
  created: string;
  updated: string;
}

declare module '../../db/database.ts' {
  interface Database {
    nodes: NodeTable;
  }
}
