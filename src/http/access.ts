import type { FastifyRequest } from 'fastify';
import type { GlobalGrantFlag } from '../domain/account/grants.ts';
import type { Principal } from '../domain/account/principal.ts';
import type { Scope } from '../domain/profile/scopes.ts';
import { fail } from '../errors.ts';

/** A route-level grant: the user kind or global grant a restricted user needs. */
export type RouteGrant = 'unrestricted' | GlobalGrantFlag | 'account_access:read_only' | 'account_access:read_write';

/** What a route needs, declared on every v4 route and enforced by the one auth check. */
export type Access =
  | { readonly public: true }
  | {
      readonly scopes: readonly Scope[];
      readonly grant?: RouteGrant;
      /** Anonymous requests pass (public images); a token, if sent, is still checked. */
      readonly optional?: boolean;
    };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const publicAccess: Access = { public: true };

export function access(scopes: Scope | readonly Scope[], grant?: RouteGrant, optional?: boolean): Access {
  return {
    scopes: typeof scopes === 'string' ? [scopes] : scopes,
    ...(grant ? { grant } : {}),
    ...(optional ? { optional } : {}),
  };
}

/** The principal of an authenticated route; the auth check has already refused anonymous calls. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw fail.unauthorized();
  return request.principal;
}
