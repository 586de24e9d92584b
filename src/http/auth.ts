import type { FastifyRequest } from 'fastify';
import { fail } from '../errors.ts';
import type { Access, RouteNeeds } from './access.ts';
import { subprotocolToken } from './websocket-protocols.ts';

/** The groups' half of the auth check, which the assembly gives it (src/app.ts): who a token is, and what they may do. */
export interface Authenticator<Principal> {
  /** Who the bearer token stands for; null when it stands for nobody. */
  authenticate(token: string): Promise<Principal | null>;
  /** Refuses (403) a principal that lacks what the route needs. */
  authorize(principal: Principal, needs: RouteNeeds): Promise<void>;
}

const BEARER = /^(?:bearer|token)\s+(\S+)\s*$/i;

/**
 * The request's bearer token: its Authorization header or, in a WebSocket handshake, a
 * `cumulo-token.<token>` subprotocol; null when it sends neither.
 */
function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined || header === '') return subprotocolToken(request.headers) ?? null;
  const token = BEARER.exec(header)?.[1];
  if (!token) throw fail.unauthorized('Malformed Authorization header: expected Bearer <token>');
  return token;
}

/** The one auth check: token (401), then the route's scopes and grant (403). Gives the principal, null when anonymous. */
export async function checkAccess<Principal>(
  authenticator: Authenticator<Principal>,
  request: FastifyRequest,
  access: Access,
): Promise<Principal | null> {
  if ('public' in access) return null;
  const token = bearerToken(request);
  if (token === null) {
    if (access.optional) return null;
    throw fail.unauthorized('Authentication required: send Authorization: Bearer <token>');
  }
  const principal = await authenticator.authenticate(token);
  if (principal === null) throw fail.unauthorized('Invalid Token');
  await authenticator.authorize(principal, access);
  return principal;
}
