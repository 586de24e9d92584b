import type { Generated } from 'kysely';

export interface EventTable {
  id: Generated<number>;
  account_id: number;
  user_id: number | null;
  /** The user's, or SYSTEM_USERNAME when none acted (never null since migration 0029). */
  username: string;
  action: string;
  entity_type: string | null;
  entity_id: number | null;
  entity_label: string | null;
  entity_url: string | null;
  /** JSON object {id,label,type,url} or null; id an integer, or a public image's text id. */
  secondary_entity: string | null;
  status: string;
  percent_complete: number | null;
  rate: string | null;
  /** `0:0:20` while a running event knows it, else null. */
  time_remaining: string | null;
  /** '' unless the event has something to add (never null since migration 0029). */
  message: string;
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
