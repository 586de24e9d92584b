import type { Generated } from 'kysely';

export interface ManagedIssueTable {
  id: Generated<number>;
  account_id: number;
  /** The service whose failure opened it (kept after the service is deleted). */
  service_id: number;
  /** The ticket's summary. */
  label: string;
  created: string;
  /** When the service recovered or stopped being watched; null while open. */
  closed: string | null;
}

declare module '../../../db/database.ts' {
  interface Database {
    managed_issues: ManagedIssueTable;
  }
}
