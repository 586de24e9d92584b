import type { FastifyInstance, FastifyRequest } from 'fastify';

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
function redactPast(path: string, credentialPath: string): string | null {
  const prefix = credentialPath.split('/').filter(Boolean);
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

function redactPath(path: string, credentialPaths: readonly string[]): string {
  for (const credentialPath of credentialPaths) {
    const redacted = redactPast(path, credentialPath);
    if (redacted !== null) return redacted;
  }
  return path;
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
 * A request URL as it may be written to the log: credentials in the query replaced, and what follows
 * one of `credentialPaths` (URLs whose next segment is their own credential, such as an upload's).
 */
export function redactUrl(url: string, credentialPaths: readonly string[]): string {
  const q = url.indexOf('?');
  const path = redactPath(q === -1 ? url : url.slice(0, q), credentialPaths);
  return q === -1 ? path : `${path}?${redactQuery(url.slice(q + 1))}`;
}

/**
 * The `req` serializer of every request log line (Fastify's own fields), with the URL redacted. Headers
 * are never logged, so neither Authorization nor cookies reach the log.
 */
export function requestSerializer(credentialPaths: readonly string[]) {
  return (request: FastifyRequest) => ({
    method: request.method,
    url: redactUrl(request.url, credentialPaths),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  });
}

/**
 * One line a request, once it is answered: the request (through the serializer above), the status
 * and the time it took. Fastify's own request logging, a line at the start and one at the end, is off.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  });
}
