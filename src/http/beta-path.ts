import type { IncomingMessage } from 'node:http';
import { API_PREFIX } from './openapi.ts';

/**
 * The API's second base path: the reference's servers list `/v4` and `/v4beta`, and today's clients
 * call some groups (accounts, regions, nodes, firewalls, VLANs) under `/v4beta`. It is one API:
 * a request under `/v4beta` is routed as the same request under `/v4` before anything else sees it
 * (CORS, authentication, errors, logs), so the two can never answer differently.
 */
export const BETA_PREFIX = '/v4beta';

/** The URL a request is routed by (Fastify's rewriteUrl): `/v4beta/...` as `/v4/...`, anything else as sent. */
export function routedUrl(request: IncomingMessage): string {
  const url = request.url ?? '/';
  if (!url.startsWith(BETA_PREFIX)) return url;
  const next = url.charAt(BETA_PREFIX.length);
  return next === '' || next === '/' || next === '?' ? `${API_PREFIX}${url.slice(BETA_PREFIX.length)}` : url;
}
