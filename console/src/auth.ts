import { sha256 } from '@noble/hashes/sha2.js';
import { type ConsoleConfig, consoleConfig } from './config.ts';
import { HOME } from './router.ts';
import { store, storedTokens, type Tokens } from './tokens.ts';

/**
 * Sign-in through the server's OAuth authorization server as a public client: authorization code
 * with PKCE (S256), then refresh tokens. The tokens live in this browser's localStorage; the PKCE
 * verifier and state only for the round trip, in sessionStorage.
 */

const PENDING_KEY = 'cumulo.pending-sign-in';

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomText(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The console's own address, where the sign-in comes back to. */
function redirectUri(): string {
  return `${window.location.origin}/`;
}

/**
 * Ends the sign-in: the server revokes the refresh token and every access token issued with it
 * (RFC 7009), and this browser forgets them. The tokens are forgotten even when the server cannot be
 * reached; they then run out by themselves.
 */
export async function signOut(): Promise<void> {
  const tokens = storedTokens();
  store(null);
  if (!tokens) return;
  try {
    const config = await consoleConfig();
    const res = await fetch(config.revoke_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: config.client_id, token: tokens.refresh_token, token_type_hint: 'refresh_token' }),
    });
    await res.arrayBuffer();
  } catch {
    // Offline: nothing more to do here.
  }
}

/** Sends the browser to the sign-in page; it comes back to the console with a code. */
export async function startSignIn(returnTo: string): Promise<void> {
  const config = await consoleConfig();
  const verifier = randomText();
  const state = randomText(16);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, returnTo }));
  const challenge = base64url(sha256(new TextEncoder().encode(verifier)));
  const query = new URLSearchParams({
    client_id: config.client_id,
    response_type: 'code',
    redirect_uri: redirectUri(),
    scope: '*',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  window.location.assign(`${config.authorize_url}?${query}`);
}

interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  error?: string;
  error_description?: string;
}

async function tokenRequest(config: ConsoleConfig, fields: Record<string, string>): Promise<Tokens> {
  const res = await fetch(config.token_url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: config.client_id, ...fields }),
  });
  const body = (await res.json()) as TokenAnswer;
  if (!res.ok) throw new Error(body.error_description ?? body.error ?? `Sign-in failed (${res.status})`);
  const tokens = {
    access_token: body.access_token,
    refresh_token: body.refresh_token,
    expires_at: Date.now() + (body.expires_in - 60) * 1000,
    scope: body.scope,
  };
  store(tokens);
  return tokens;
}

/** Whether this page was opened by the sign-in's redirect, with its answer in the query. */
export function signInToFinish(): boolean {
  const query = new URLSearchParams(window.location.search);
  return query.has('code') || query.has('error');
}

/**
 * Finishes a sign-in when the page was opened by its redirect (`?code=…&state=…`, or `?error=…`):
 * returns where the user was going, and takes the query out of the address bar.
 */
export async function finishSignIn(): Promise<{ returnTo: string } | { error: string } | null> {
  if (!signInToFinish()) return null;
  const query = new URLSearchParams(window.location.search);
  const code = query.get('code');
  const error = query.get('error');
  if (!code && !error) return null;
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as {
    verifier: string;
    state: string;
    returnTo: string;
  } | null;
  sessionStorage.removeItem(PENDING_KEY);
  window.history.replaceState(null, '', `/#${pending?.returnTo ?? HOME}`);
  if (error) return { error: query.get('error_description') ?? error };
  if (!pending || pending.state !== query.get('state')) return { error: 'This sign-in was not started here; sign in again' };
  const config = await consoleConfig();
  await tokenRequest(config, {
    grant_type: 'authorization_code',
    code: code ?? '',
    redirect_uri: redirectUri(),
    code_verifier: pending.verifier,
  });
  return { returnTo: pending.returnTo };
}

let refreshing: Promise<Tokens | null> | null = null;

/** A new access token from the refresh token (one at a time: each refresh token works once). */
export function refreshTokens(): Promise<Tokens | null> {
  refreshing ??= (async () => {
    const current = storedTokens();
    if (!current) return null;
    try {
      return await tokenRequest(await consoleConfig(), { grant_type: 'refresh_token', refresh_token: current.refresh_token });
    } catch {
      // Another tab may have used the refresh token first: take what it stored.
      const latest = storedTokens();
      if (latest && latest.refresh_token !== current.refresh_token) return latest;
      store(null);
      return null;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** An access token still in time, refreshed when it has run out; null when the user must sign in. */
export async function accessToken(): Promise<string | null> {
  const tokens = storedTokens();
  if (!tokens) return null;
  if (tokens.expires_at > Date.now()) return tokens.access_token;
  return (await refreshTokens())?.access_token ?? null;
}
