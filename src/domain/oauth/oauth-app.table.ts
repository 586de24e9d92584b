import type { Generated } from 'kysely';

/** A user's authorization of an OAuth client (an "app" of /profile/apps): one per user and client. */
export interface OAuthAppTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  client_id: string;
  /** Canonical scope text: everything the user has granted this client so far. */
  scopes: string;
  created: string;
  /** When the newest refresh token runs out; the app's tokens end with it. */
  expiry: string | null;
}

declare module '../../db/database.ts' {
  interface Database {
    oauth_apps: OAuthAppTable;
  }
}
