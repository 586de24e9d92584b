import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { fail } from '../errors.ts';
import { VERSION } from '../version.ts';
import { adminOpenApi } from './admin-openapi.ts';
import { allowanceRoutes } from './allowance.routes.ts';
import { computeHostRoutes } from './compute-hosts.routes.ts';
import { controlRoutes } from './control.routes.ts';
import { faultRoutes } from './faults.routes.ts';
import { ipv6Routes } from './ipv6.routes.ts';
import { managedRoutes } from './managed.routes.ts';
import { nodeFirewallRoutes } from './node-firewall.routes.ts';
import { stateRoutes } from './state.routes.ts';
import { userPasswordRoutes } from './user-password.routes.ts';

export const ADMIN_PREFIX = '/admin';

const BEARER = /^bearer\s+(\S+)\s*$/i;
const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

/** 401 unless the request carries the admin token (compared in constant time). */
function adminAuth(adminToken: string): (request: FastifyRequest) => Promise<void> {
  const expected = digest(adminToken);
  return async (request) => {
    const header = request.headers.authorization;
    if (!header) throw fail.unauthorized('Authentication required: send Authorization: Bearer <CUMULO_ADMIN_TOKEN>');
    const token = BEARER.exec(header)?.[1];
    if (!token || !crypto.timingSafeEqual(digest(token), expected)) throw fail.unauthorized('Invalid admin token');
  };
}

/**
 * The admin API under /admin, with its own token and its own document (/admin/openapi.json). Off
 * (every /admin path answers 404) unless CUMULO_ADMIN_TOKEN is set.
 */
export async function registerAdmin(app: FastifyInstance): Promise<void> {
  const adminToken = app.ctx.config.adminToken;
  if (!adminToken) return;
  await app.register(
    async (admin) => {
      const routes: RouteOptions[] = [];
      admin.addHook('onRoute', (route) => {
        routes.push(route);
      });
      admin.addHook('onRequest', adminAuth(adminToken));
      let document: Record<string, unknown> | null = null;
      admin.get('/openapi.json', { schema: { hide: true } }, async () => {
        document ??= adminOpenApi(routes, ADMIN_PREFIX, VERSION);
        return document;
      });
      await admin.register(stateRoutes);
      await admin.register(controlRoutes);
      await admin.register(faultRoutes);
      await admin.register(allowanceRoutes);
      await admin.register(nodeFirewallRoutes);
      await admin.register(computeHostRoutes);
      await admin.register(ipv6Routes);
      await admin.register(managedRoutes);
      await admin.register(userPasswordRoutes);
    },
    { prefix: ADMIN_PREFIX },
  );
}
