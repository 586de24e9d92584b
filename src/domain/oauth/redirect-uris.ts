import { CONSOLE_CLIENT_ID, consoleRedirectUri, INSTALLATION_ACCOUNT_ID } from './console-client.ts';
import type { OAuthClientRow } from './oauth-client.repository.ts';

/**
 * The redirect URIs a client may name: its registered one, and for the console this server's own
 * addresses (`baseUrls`, from configuration alone: http/public-url.ts ownBaseUrls).
 */
export function clientRedirectUris(client: OAuthClientRow, baseUrls: readonly string[]): string[] {
  const own = client.account_id === INSTALLATION_ACCOUNT_ID && client.id === CONSOLE_CLIENT_ID;
  return [client.redirect_uri, ...(own ? baseUrls.map(consoleRedirectUri) : [])];
}

/**
 * Whether a request's redirect URI is a client's: the same text, or, when the client's has no query,
 * its text with a query added (RFC 6749 3.1.2: the query is kept and the code and state are added to
 * it), as a console that comes back to `/oauth/callback?returnTo=/nodes` asks. Never another
 * address, path or a fragment.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (requested === registered) return true;
  if (registered.includes('?') || registered.includes('#') || requested.includes('#')) return false;
  if (!requested.startsWith(`${registered}?`) || requested.length === registered.length + 1) return false;
  const [ours, theirs] = [URL.parse(registered), URL.parse(requested)];
  return ours !== null && theirs !== null && ours.origin === theirs.origin && ours.pathname === theirs.pathname;
}

/** Whether an absolute http(s) URL is at the address (scheme, host and port) of one of `uris`. */
export function atOriginOf(uris: readonly string[], target: URL): boolean {
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return false;
  return uris.some((uri) => URL.parse(uri)?.origin === target.origin);
}

/** VSCHAR (RFC 6749 A.5): a state the library takes, and so sends back. */
const VSCHAR = /^[\x20-\x7e]+$/;

/**
 * The library's redirect back with an error, the error's fields set on the redirect URI's own query
 * (RFC 6749 4.1.2.1): the library writes them in place of a query the URI has, and so drops them and
 * the state when it has one.
 */
export function errorRedirect(location: string, error: { name: string; message: string }, state: string | undefined): string {
  const url = new URL(location);
  url.searchParams.set('error', error.name);
  if (error.message) url.searchParams.set('error_description', error.message);
  if (state && VSCHAR.test(state)) url.searchParams.set('state', state);
  return url.href;
}
