import type { Generated } from 'kysely';

export interface TokenTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  label: string;
  scopes: string;
  /** SHA-256 of the token value, hex; the value itself is never stored. */
  token_hash: string;
  /** The first characters of the value, shown in listings like the reference does. */
  token_prefix: string;
  created: string;
  expiry: string | null;
  /** The OAuth app (oauth_apps) that issued this token; null for a personal access token. */
  app_id: number | null;
}

declare module '../../db/database.ts' {
  interface Database {
    tokens: TokenTable;
  }
}
