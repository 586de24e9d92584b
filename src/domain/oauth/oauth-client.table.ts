/** An OAuth client an account registered: an application that signs its users in through this service. */
export interface OAuthClientTable {
  /** 20 hex characters, public (the `client_id` of the OAuth exchange). */
  id: string;
  account_id: number;
  label: string;
  redirect_uri: string;
  /** 1: a public client (a browser or native app), which has no secret and proves itself with PKCE. */
  public: number;
  /** SHA-256 of the secret; null for a public client. The secret itself is shown once and never kept. */
  secret_hash: string | null;
  /** `active`, `disabled` or `suspended`. */
  status: string;
  created: string;
  updated: string;
}

declare module '../../db/database.ts' {
  interface Database {
    oauth_clients: OAuthClientTable;
  }
}
