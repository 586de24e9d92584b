import type { FastifyRequest } from 'fastify';
import { ApiError, fail } from '../errors.ts';
import type { Access, RouteNeeds } from './access.ts';
import { subprotocolToken } from './websocket-protocols.ts';

/** The groups' half of the auth check, which the assembly gives it (src/app.ts): who a token is, and what they may do. */
export interface Authenticator<Principal> {
  /** Who the bearer token stands for; null when it stands for nobody. A promise only when it must read the database. */
  authenticate(token: string): Principal | null | Promise<Principal | null>;
  /** Refuses (403) a principal that lacks what the route needs; a promise only when it must read the database. */
  authorize(principal: Principal, needs: RouteNeeds): void | Promise<void>;
}

const BEARER = /^(?:bearer|token)\s+(\S+)\s*$/i;

// The refusals every anonymous or mistaken call meets, made once with their bodies.
const NO_TOKEN = fail.unauthorized('Authentication required: send Authorization: Bearer <token>');
const UNKNOWN_TOKEN = fail.unauthorized('Invalid Token');

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

function authorized<Principal>(
  authenticator: Authenticator<Principal>,
  principal: Principal | null,
  access: RouteNeeds,
): Principal | ApiError | Promise<Principal> {
  if (principal === null) return UNKNOWN_TOKEN;
  const checking = authenticator.authorize(principal, access);
  return checking ? checking.then(() => principal) : principal;
}

/**
 * The one auth check: token (401), then the route's scopes and grant (403). Gives the principal, null
 * when anonymous; without waiting when what it needs is known (a token seen lately, an unrestricted
 * user). The 401s every anonymous or mistaken call meets are given back, not thrown (a throw costs
 * more than the rest of such a request's check); any other refusal is thrown, or rejects the promise.
 */
export function checkAccess<Principal>(
  authenticator: Authenticator<Principal>,
  request: FastifyRequest,
  access: Access,
): Principal | null | ApiError | Promise<Principal | null> {
  if ('public' in access) return null;
  const token = bearerToken(request);
  if (token === null) return access.optional ? null : NO_TOKEN;
  const found = authenticator.authenticate(token);
  return found instanceof Promise
    ? found.then((principal) => {
        const checked = authorized(authenticator, principal, access);
        if (checked instanceof ApiError) throw checked;
        return checked;
      })
    : authorized(authenticator, found, access);
}
