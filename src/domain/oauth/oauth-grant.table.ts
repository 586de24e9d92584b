import type { Generated } from 'kysely';

/** Where a code or refresh token is: usable; used once (a second use is a replay); revoked by a replay in its family. */
export type GrantState = 'live' | 'spent' | 'revoked';

/** An authorization code between the sign-in and its exchange: used once, within minutes. */
export interface OAuthCodeTable {
  /** SHA-256 of the code; the code itself goes only to the client's redirect URI. */
  code_hash: string;
  client_id: string;
  account_id: number;
  user_id: number;
  redirect_uri: string;
  scopes: string;
  /** PKCE (RFC 7636): the challenge the code's exchange must answer, and how it was made (S256). */
  code_challenge: string | null;
  code_challenge_method: string | null;
  expiry: string;
  state: Generated<GrantState>;
}

/** A refresh token of an app: each use replaces it with a new one (the used one kept as spent until its expiry). */
export interface OAuthRefreshTokenTable {
  /** SHA-256 of the token value. */
  token_hash: string;
  app_id: number;
  scopes: string;
  expiry: string;
  state: Generated<GrantState>;
  /** The grant it descends from: the hash of the code the grant began with. */
  family: string;
  /** The access token issued with it, while that exists. */
  access_token_id: number | null;
}

declare module '../../db/database.ts' {
  interface Database {
    oauth_codes: OAuthCodeTable;
    oauth_refresh_tokens: OAuthRefreshTokenTable;
  }
}
