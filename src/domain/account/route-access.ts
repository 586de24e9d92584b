import { fail } from '../../errors.ts';
import type { Access } from '../../http/access.ts';
import type { Scope } from '../profile/scopes.ts';
import type { GlobalGrantFlag } from './grants.ts';
import type { Principal } from './principal.ts';

/** A route-level grant: the user kind or global grant a restricted user needs. */
export type RouteGrant = 'unrestricted' | GlobalGrantFlag | 'account_access:read_only' | 'account_access:read_write';

declare module '../../http/access.ts' {
  interface RouteNeeds {
    readonly scopes: readonly Scope[];
    readonly grant?: RouteGrant;
  }
}

export function access(scopes: Scope | readonly Scope[], grant?: RouteGrant, optional?: boolean): Access {
  return {
    scopes: typeof scopes === 'string' ? [scopes] : scopes,
    ...(grant ? { grant } : {}),
    ...(optional ? { optional } : {}),
  };
}

/** The principal of an authenticated route; the auth check has already refused anonymous calls. */
export function principalOf(request: { readonly principal: Principal | null }): Principal {
  if (!request.principal) throw fail.unauthorized();
  return request.principal;
}
