import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { registerAdmin } from './admin/admin.plugin.ts';
import { operatorStep } from './admin/operator-hook.ts';
import type { Context } from './context.ts';
import { tokenAuthenticator } from './domain/account/authenticator.ts';
import type { Principal } from './domain/account/principal.ts';
import { CONSOLE_CLIENT_ID } from './domain/oauth/console-client.ts';
import { logoutPrefix, logoutRoutes } from './domain/oauth/logout.routes.ts';
import { oauthServerRoutes } from './domain/oauth/oauth-server.routes.ts';
import { ApiError, fail } from './errors.ts';
import type { Access } from './http/access.ts';
import { checkAccess } from './http/auth.ts';
import { routedUrl } from './http/beta-path.ts';
import { registerBodyParsers } from './http/body-parsers.ts';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './http/client-errors.ts';
import { registerConsole } from './http/console.ts';
import { corsStep } from './http/cors.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { type DoorStep, frontDoor, withoutWaiting } from './http/front-door.ts';
import { type Readiness, registerHealth } from './http/health.ts';
import { rejectNulCharacters, withEchoedFields } from './http/input-rules.ts';
import { lenientBody } from './http/lenient-body.ts';
import { registerMetrics } from './http/metrics.ts';
import { API_PREFIX, registerOpenApi } from './http/openapi.ts';
import { registerRequestLog, requestSerializer } from './http/request-log.ts';
import { cachedSerializerFactory } from './http/serialization.ts';
import { validatorCompiler } from './http/validation.ts';
import { randomHex } from './random.ts';
import { CREDENTIAL_PATHS, dataRoutes, v4Routes } from './routes.ts';
import { VERSION } from './version.ts';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: Context;
    /** Every v4 route with what it needs; tests derive their authorization matrix from it. */
    routeTable: RouteEntry[];
  }
  interface FastifyRequest {
    /** Who the request acts as, once the auth check has passed its token; null when anonymous. */
    principal: Principal | null;
  }
}

export interface RouteEntry {
  method: string;
  url: string;
  operationId: string | undefined;
  access: Access;
}

/** Builds the HTTP app on a ready context: error handling, auth, metrics, health, docs, every v4 route and the admin API. */
export async function buildApp(ctx: Context, readiness: Readiness): Promise<FastifyInstance> {
  const app = Fastify({
    // Request lines go through one serializer that keeps credentials out of logged URLs.
    loggerInstance: ctx.log.child({}, { serializers: { req: requestSerializer(CREDENTIAL_PATHS) } }) as FastifyBaseLogger,
    bodyLimit: ctx.config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomHex(ctx.random, 8),
    // One line a request, once answered (src/http/request-log.ts) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH },
    rewriteUrl: routedUrl,
    // Answered by the hook below instead, in the envelope.
    return503OnClosing: false,
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
    frameworkErrors,
    clientErrorHandler,
  });
  app.decorate('ctx', ctx);
  app.decorateRequest('principal', null);
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandling(app);
  registerBodyParsers(app);

  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    if (route.schema?.body) route.schema.body = withEchoedFields(route.schema.body, route.schema.response);
    const isV4 = route.url.startsWith(`${API_PREFIX}/`) && route.url !== `${API_PREFIX}/openapi.json`;
    if (!isV4) return;
    const access = route.config?.access;
    if (!access) throw new Error(`route ${route.method} ${route.url} declares no access (scopes and grant)`);
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      routeTable.push({ method, url: route.url, operationId: route.schema?.operationId, access });
    }
  });
  // Requests that arrive (on a kept-alive connection) once the server has begun to close: a 503.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  const authenticator = tokenAuthenticator(ctx);
  const steps: DoorStep[] = [
    (_request, reply) => {
      if (!closing) return;
      reply.header('connection', 'close');
      throw fail.unavailable('The server is shutting down; try again');
    },
    // Then: a preflight is answered before anything else runs, authentication included.
    ...[corsStep(app, ctx.config)].filter((step) => step !== null),
    // Before authentication: a seeded clock moves and due jobs run first, as they would have by then.
    operatorStep(ctx),
    (request, reply) => {
      reply.header('x-request-id', request.id);
    },
    (request) => {
      const access = request.routeOptions.config.access;
      if (!access) return;
      const principal = checkAccess(authenticator, request, access);
      if (principal instanceof ApiError) return principal;
      if (!(principal instanceof Promise)) {
        request.principal = principal;
        return;
      }
      return principal.then((p) => {
        request.principal = p;
      });
    },
  ];
  app.addHook('onRequest', frontDoor(steps));
  app.addHook('preValidation', withoutWaiting(rejectNulCharacters));
  app.addHook('preValidation', withoutWaiting(lenientBody));

  registerMetrics(app, ctx);
  registerRequestLog(app, CREDENTIAL_PATHS);
  await registerOpenApi(app, VERSION);

  registerHealth(app, readiness);

  await app.register(v4Routes, { prefix: API_PREFIX });
  await app.register(dataRoutes);
  await app.register(oauthServerRoutes, { prefix: ctx.config.oauthPath });
  await app.register(logoutRoutes, { prefix: logoutPrefix(ctx.config.oauthPath) });
  await registerConsole(app, CONSOLE_CLIENT_ID);
  await registerAdmin(app);
  return app;
}
