import type { Generated } from 'kysely';

export interface EventTable {
  id: Generated<number>;
  account_id: number;
  user_id: number | null;
  username: string | null;
  action: string;
  entity_type: string | null;
  entity_id: number | null;
  entity_label: string | null;
  entity_url: string | null;
  /** JSON object {id,label,type,url} or null. */
  secondary_entity: string | null;
  status: string;
  percent_complete: number | null;
  rate: string | null;
  time_remaining: string | null;
  message: string | null;
  duration: number | null;
  seen: number;
  read: number;
  created: string;
  updated: string;
}

declare module '../../db/database.ts' {
  interface Database {
    events: EventTable;
  }
}
