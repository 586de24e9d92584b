import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.ts';
import type { DoorStep } from './front-door.ts';
import { API_PREFIX } from './openapi.ts';

/** Response headers a browser page may read besides the safelisted ones. */
const EXPOSED_HEADERS = 'x-request-id, allow, content-length, warning';
const METHODS = 'GET, HEAD, POST, PUT, DELETE';
const MAX_AGE_SECONDS = '86400';

function addVary(reply: FastifyReply, name: string): void {
  const vary = reply.getHeader('vary');
  reply.header('vary', vary === undefined || vary === '' ? name : `${String(vary)}, ${name}`);
}

/**
 * CORS for the v4 API, so browser tools can call it with a token: preflights (OPTIONS) are answered
 * before authentication, and every v4 answer, errors included, carries the headers. Never with
 * credentials: the API authenticates by bearer token, not by cookie. The OAuth token and revoke
 * endpoints get them too (a browser app signing in with PKCE exchanges its code, and revokes its
 * token when it signs out, from its own page). Other paths
 * (admin, data URLs, docs) get none, and OPTIONS is no method of theirs. Null when CORS is off.
 *
 * A step of the front door (src/http/front-door.ts): every request passes it, so it decides from
 * strings made once.
 */
export function corsStep(app: FastifyInstance, config: Pick<Config, 'corsOrigins' | 'oauthPath'>): DoorStep | null {
  const origins = config.corsOrigins;
  if (origins !== '*' && origins.length === 0) return null;
  const allowed = origins === '*' ? null : new Set(origins);
  const oauthPaths = [`${config.oauthPath}/token`, `${config.oauthPath}/revoke`];
  const isCorsPath = (url: string) => url.startsWith(`${API_PREFIX}/`) || oauthPaths.some((path) => url.startsWith(path));

  // A preflight the step did not answer (a path without CORS) finds no method here.
  app.options('*', { schema: { hide: true } }, (_request, reply) => reply.callNotFound());

  return (request, reply) => {
    // Caches keep answers apart by origin, whichever origins are allowed.
    addVary(reply, 'Origin');
    if (!isCorsPath(request.url)) return;
    const origin = request.headers.origin;
    if (allowed === null) reply.header('access-control-allow-origin', '*');
    else if (origin !== undefined && allowed.has(origin)) reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    if (request.method !== 'OPTIONS') return;
    reply.header('access-control-allow-methods', METHODS);
    addVary(reply, 'Access-Control-Request-Headers');
    const asked = request.headers['access-control-request-headers'];
    if (asked !== undefined) reply.header('access-control-allow-headers', asked);
    reply.header('access-control-max-age', MAX_AGE_SECONDS);
    // Some browsers wait for a body of a 204 without a length.
    reply.code(204).header('content-length', '0').send();
  };
}
