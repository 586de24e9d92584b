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
}

/** A refresh token of an app: each use replaces it with a new one. */
export interface OAuthRefreshTokenTable {
  /** SHA-256 of the token value. */
  token_hash: string;
  app_id: number;
  scopes: string;
  expiry: string;
}

declare module '../../db/database.ts' {
  interface Database {
    oauth_codes: OAuthCodeTable;
    oauth_refresh_tokens: OAuthRefreshTokenTable;
  }
}
