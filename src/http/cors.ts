import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { API_PREFIX } from './openapi.ts';

/** Response headers a browser page may read besides the safelisted ones. */
const EXPOSED_HEADERS = ['x-request-id', 'allow', 'content-length', 'warning'];

/**
 * CORS for the v4 API, so browser tools can call it with a token: preflights (OPTIONS) are answered
 * before authentication, and every v4 answer, errors included, carries the headers. Never with
 * credentials: the API authenticates by bearer token, not by cookie. The OAuth token endpoint gets
 * them too. Other paths (admin, data
 * URLs, docs) get no CORS headers.
 */
export async function registerCors(app: FastifyInstance, config: Pick<Config, 'corsOrigins' | 'oauthPath'>): Promise<void> {
  const origins = config.corsOrigins;
  if (origins !== '*' && origins.length === 0) return;
  const common = {
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 86400,
    // A bare OPTIONS (no Origin) is answered like a preflight rather than refused outside the envelope.
    strictPreflight: false,
  };
  // Made once: the delegator runs for every request and only picks one.
  const api = { ...common, origin: origins === '*' ? '*' : [...origins] };
  const other = { ...common, origin: false };
  // A browser app signing in with PKCE exchanges its code from its own page.
  const tokenPath = `${config.oauthPath}/token`;
  await app.register(cors, {
    delegator: (request, callback) => {
      const path = request.url.split('?', 1)[0] ?? '';
      callback(null, path.startsWith(`${API_PREFIX}/`) || path.startsWith(tokenPath) ? api : other);
    },
  });
}
