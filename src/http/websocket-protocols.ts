import type { IncomingHttpHeaders } from 'node:http';

/**
 * The subprotocol prefix by which a WebSocket client sends its bearer token (`cumulo-token.<token>`):
 * browsers cannot set headers on a handshake, but they can offer subprotocols. The server never
 * answers with it; it picks another offered subprotocol (such as `cumulo-console`) or none.
 */
export const TOKEN_SUBPROTOCOL = 'cumulo-token.';

export function isWebSocketHandshake(headers: IncomingHttpHeaders): boolean {
  return String(headers.upgrade ?? '').toLowerCase() === 'websocket';
}

function offered(headers: IncomingHttpHeaders): string[] {
  const header = headers['sec-websocket-protocol'];
  if (header === undefined) return [];
  return header
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** The token a WebSocket handshake offers as a subprotocol; undefined for other requests and handshakes without one. */
export function subprotocolToken(headers: IncomingHttpHeaders): string | undefined {
  if (!isWebSocketHandshake(headers)) return undefined;
  return offered(headers)
    .find((p) => p.startsWith(TOKEN_SUBPROTOCOL))
    ?.slice(TOKEN_SUBPROTOCOL.length);
}

/** The subprotocol a handshake is answered with: the first offered one that is not a credential, else none. */
export function chosenSubprotocol(protocols: Iterable<string>): string | false {
  for (const p of protocols) if (!p.startsWith(TOKEN_SUBPROTOCOL)) return p;
  return false;
}
