import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Logger, pino } from 'pino';
import { withoutWaiting } from './front-door.ts';

export const REDACTED = '[REDACTED]';

/** Query parameters that carry a credential by their name: OAuth's access_token, keys, signatures, passwords, tickets. */
const SECRET_PARAMETER = /token|secret|passw|signature|credential|ticket|api[-_]?key|^key$|^code$|^auth/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Past the credential path (matched as the router does: empty segments skipped, escapes decoded), every segment goes. */
function redactPast(path: string, prefix: readonly string[]): string | null {
  const segments = path.split('/');
  let matched = 0;
  for (const [i, segment] of segments.entries()) {
    if (segment === '') continue;
    if (matched === prefix.length) segments[i] = REDACTED;
    else if (decoded(segment) === prefix[matched]) matched += 1;
    else return null;
  }
  return segments.join('/');
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return eq !== -1 && SECRET_PARAMETER.test(decoded(name.replace(/\+/g, ' '))) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * Request URLs as they may be written to the log: credentials in the query replaced, and what follows
 * one of `credentialPaths` (URLs whose next segment is their own credential, such as an upload's).
 * A path that neither escapes a character nor names a credential path's first segment is left as it is
 * without being taken apart.
 */
export function urlRedactor(credentialPaths: readonly string[]): (url: string) => string {
  const prefixes = credentialPaths.map((p) => p.split('/').filter(Boolean));
  const redactPath = (path: string): string => {
    const escaped = path.includes('%');
    for (const prefix of prefixes) {
      if (!escaped && !path.includes(prefix[0] ?? '')) continue;
      const redacted = redactPast(path, prefix);
      if (redacted !== null) return redacted;
    }
    return path;
  };
  return (url) => {
    const q = url.indexOf('?');
    return q === -1 ? redactPath(url) : `${redactPath(url.slice(0, q))}?${redactQuery(url.slice(q + 1))}`;
  };
}

export function redactUrl(url: string, credentialPaths: readonly string[]): string {
  return urlRedactor(credentialPaths)(url);
}

/**
 * The `req` serializer of a log line that names a request, with the URL redacted. Headers are never
 * logged, so neither Authorization nor cookies reach the log.
 */
export function requestSerializer(credentialPaths: readonly string[]) {
  const redact = urlRedactor(credentialPaths);
  return (request: FastifyRequest) => ({
    method: request.method,
    url: redact(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  });
}

/** What pino keeps of a logger that the request line needs (its symbols are pino's public API). */
interface PinoInternals {
  [pino.symbols.streamSym]: { write(line: string): void };
  [pino.symbols.chindingsSym]: string;
}

/**
 * One line a request, once it is answered: the request (through the serializer above), the status
 * and the time it took, as pino would write it at info with the request's id. Built here rather than
 * by pino's general path, which costs several times as much, and a line a request is the service's
 * busiest log. Fastify's own request logging, a line at the start and one at the end, is off.
 */
export function registerRequestLog(app: FastifyInstance, credentialPaths: readonly string[]): void {
  const log = app.log as unknown as Logger & PinoInternals;
  const stream = log[pino.symbols.streamSym];
  const bindings = log[pino.symbols.chindingsSym];
  const serialize = requestSerializer(credentialPaths);
  app.addHook(
    'onResponse',
    withoutWaiting((request, reply) => {
      if (!log.isLevelEnabled('info')) return;
      stream.write(
        `{"level":30,"time":${Date.now()}${bindings},"reqId":${JSON.stringify(request.id)},"req":${JSON.stringify(serialize(request))},"res":{"statusCode":${reply.statusCode}},"responseTime":${reply.elapsedTime},"msg":"request completed"}\n`,
      );
    }),
  );
}
