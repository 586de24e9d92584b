import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { PACKAGE_ROOT } from '../package-root.ts';
import { API_PREFIX } from './openapi.ts';

/** The web console's build: made by `npm install` in a checkout (scripts/build-console.ts), shipped in the package. */
export const CONSOLE_DIST = path.join(PACKAGE_ROOT, 'console', 'dist');

/** Whether the console's build is there to serve (else `/` says how to build it). */
export function consoleBuilt(): boolean {
  return fs.existsSync(path.join(CONSOLE_DIST, 'index.html'));
}

/**
 * The CSP sources that allow the page's own inline scripts (the build puts first-reads.ts inline in
 * index.html), by their SHA-256: no other inline script runs.
 */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (m) =>
      `'sha256-${crypto
        .createHash('sha256')
        .update(m[1] ?? '', 'utf8')
        .digest('base64')}'`,
  );
}

/**
 * The web console at `/`: a page built on the public v4 API alone, signing in through this server's
 * OAuth authorization server as the public client start-up registers. Its files are the build's
 * (hashed names under /assets, kept a year; the page itself always checked again); /console.json
 * tells it where the API and the sign-in are, and its client id (`clientId`).
 */
export async function registerConsole(app: FastifyInstance, clientId: string): Promise<void> {
  const { config } = app.ctx;
  const connect = ["'self'", ...(config.publicUrl ? [new URL(config.publicUrl).origin] : [])].join(' ');
  const scripts = [
    "'self'",
    ...(consoleBuilt() ? inlineScriptHashes(fs.readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8')) : []),
  ];
  const policy = `default-src 'self'; connect-src ${connect}; img-src 'self' data:; style-src 'self'; script-src ${scripts.join(' ')}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`;

  app.get('/console.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return {
      client_id: clientId,
      authorize_url: `${config.oauthPath}/authorize`,
      token_url: `${config.oauthPath}/token`,
      revoke_url: `${config.oauthPath}/revoke`,
      api_root: API_PREFIX,
    };
  });

  if (!consoleBuilt()) {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web console is not built: run `npm install` (or `npm run build:console`), then start again.\n'),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: CONSOLE_DIST,
    prefix: '/',
    wildcard: false,
    decorateReply: false,
    cacheControl: false,
    index: ['index.html'],
    // The build's .br and .gz copies (scripts/build-console.ts), to a browser that accepts them.
    preCompressed: true,
    setHeaders(res, file) {
      res.header('content-security-policy', policy);
      res.header('x-frame-options', 'DENY');
      res.header('referrer-policy', 'no-referrer');
      res.header(
        'cache-control',
        file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
}
