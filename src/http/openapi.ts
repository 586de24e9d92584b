import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { BETA_PREFIX } from './beta-path.ts';
import { ErrorEnvelope } from './schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The path as the API document names it, where the route's own pattern differs (image ids hold a slash). */
    openapiPath?: string;
  }
}

export const API_PREFIX = '/v4';

/** Generates /v4/openapi.json from the route schemas and serves a docs page at /docs. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  app.addSchema(ErrorEnvelope);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Cumulo v4 API',
        version,
        description: 'Cloud infrastructure management API (v4): nodes, images, networking, DNS, monitoring.',
      },
      // The same API under both (src/http/beta-path.ts).
      servers: [{ url: API_PREFIX }, { url: BETA_PREFIX }],
      components: {
        securitySchemes: {
          personalAccessToken: { type: 'http', scheme: 'bearer' },
          oauth: {
            type: 'oauth2',
            flows: { authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', scopes: {} } },
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const access = route.config?.access;
      if (!access || !url.startsWith(`${API_PREFIX}/`)) return { schema: { ...schema, hide: true }, url };
      // An empty requirement ({}) is how OpenAPI says a token is optional (public images).
      const security: Record<string, string[]>[] =
        'public' in access ? [] : [{ personalAccessToken: [] }, { oauth: [...access.scopes] }, ...(access.optional ? [{}] : [])];
      const path = route.config?.openapiPath ?? url.slice(API_PREFIX.length);
      return { schema: { ...schema, security } as typeof schema, url: path };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}
