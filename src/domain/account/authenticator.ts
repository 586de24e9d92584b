import type { Context } from '../../context.ts';
import { fail } from '../../errors.ts';
import type { RouteNeeds } from '../../http/access.ts';
import type { Authenticator } from '../../http/auth.ts';
import { scopeAllows } from '../profile/scopes.ts';
import { authenticateToken } from '../profile/token.service.ts';
import { permits } from './grants.ts';
import type { Principal } from './principal.ts';
import type { RouteGrant } from './route-access.ts';
import { loadGlobalGrants } from './user.service.ts';

/** The auth check's answers: a token of the profile group's, then the route's scopes and this group's grants. */
export function tokenAuthenticator(ctx: Context): Authenticator<Principal> {
  return {
    authenticate: (token) => authenticateToken(ctx, token),
    authorize(principal: Principal, needs: RouteNeeds) {
      const missing = needs.scopes.every((s) => scopeAllows(principal.scopes, s))
        ? []
        : needs.scopes.filter((s) => !scopeAllows(principal.scopes, s));
      if (missing.length) throw fail.forbidden(`Unauthorized: this token lacks the scope ${missing.join(' and ')}`);
      // Only a restricted user's global grants are read from the database.
      if (needs.grant && principal.restricted) return checkGrant(ctx, principal, needs.grant);
    },
  };
}

async function checkGrant(ctx: Context, principal: Principal, grant: RouteGrant): Promise<void> {
  if (!principal.restricted) return;
  if (grant === 'unrestricted') throw fail.forbidden('Unauthorized: only unrestricted users may do this');
  const global = await loadGlobalGrants(ctx.db, principal);
  if (grant === 'account_access:read_only' || grant === 'account_access:read_write') {
    const needed = grant === 'account_access:read_only' ? 'read_only' : 'read_write';
    if (!permits(global.account_access, needed)) throw fail.forbidden(`Unauthorized: needs ${needed} account access`);
    return;
  }
  if (!global[grant]) throw fail.forbidden(`Unauthorized: needs the ${grant} grant`);
}
