import type { FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { permits } from '../domain/account/grants.ts';
import type { Principal } from '../domain/account/principal.ts';
import { loadGlobalGrants } from '../domain/account/user.service.ts';
import { scopeAllows } from '../domain/profile/scopes.ts';
import { authenticateToken } from '../domain/profile/token.service.ts';
import { fail } from '../errors.ts';
import type { Access, RouteGrant } from './access.ts';

const BEARER = /^(?:bearer|token)\s+(\S+)\s*$/i;

/** The one auth check: token (401), then the route's scopes and grant (403). */
export async function checkAccess(ctx: Context, request: FastifyRequest, access: Access): Promise<void> {
  request.principal = null;
  if ('public' in access) return;
  const header = request.headers.authorization;
  if (header === undefined || header === '') {
    if (access.optional) return;
    throw fail.unauthorized('Authentication required: send Authorization: Bearer <token>');
  }
  const token = BEARER.exec(header)?.[1];
  if (!token) throw fail.unauthorized('Malformed Authorization header: expected Bearer <token>');
  const principal = await authenticateToken(ctx, token);
  if (!principal) throw fail.unauthorized('Invalid Token');
  const missing = access.scopes.filter((s) => !scopeAllows(principal.scopes, s));
  if (missing.length) throw fail.forbidden(`Unauthorized: this token lacks the scope ${missing.join(' and ')}`);
  if (access.grant) await checkGrant(ctx, principal, access.grant);
  request.principal = principal;
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
