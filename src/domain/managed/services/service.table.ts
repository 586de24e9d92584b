import type { Generated } from 'kysely';

export interface ManagedServiceTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  /** url or tcp. */
  service_type: string;
  address: string;
  /** Seconds a probe waits before it counts the service as down. */
  timeout: number;
  body: string | null;
  consultation_group: string;
  notes: string | null;
  region: string | null;
  /** JSON array of managed credential ids; answered through the credentials' `liveCredentialIds`. */
  credentials: string;
  /** disabled, pending, ok or problem. */
  status: string;
  /** Bumped by every change a probe depends on (address, type, timeout, body, enable, disable). */
  probe_epoch: number;
  /**
   * Service-clock ms when the probe the latest change (update, enable) asked for is due: changes
   * probe at once at most once a minute (probe-schedule.ts).
   */
  reprobe_at: number | null;
  last_probed: string | null;
  last_problem: string | null;
  created: string;
  updated: string;
}

declare module '../../../db/database.ts' {
  interface Database {
    managed_services: ManagedServiceTable;
  }
}
