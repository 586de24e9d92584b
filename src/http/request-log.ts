import type { FastifyInstance, FastifyRequest } from 'fastify';
import { IMAGE_DATA_PATH } from '../domain/images/image-upload.service.ts';

export const REDACTED = '[REDACTED]';

/** Query parameters that carry a credential by their name: OAuth's access_token, keys, signatures, passwords. */
const SECRET_PARAMETER = /token|secret|passw|signature|credential|api[-_]?key|^key$|^code$|^auth/i;
/** An upload URL's last segment is its own credential. */
const UPLOAD_SEGMENTS = IMAGE_DATA_PATH.split('/').filter(Boolean);

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Past the upload path (matched as the router does: empty segments skipped, escapes decoded), every segment goes. */
function redactPath(path: string): string {
  const segments = path.split('/');
  let matched = 0;
  for (const [i, segment] of segments.entries()) {
    if (segment === '') continue;
    if (matched === UPLOAD_SEGMENTS.length) segments[i] = REDACTED;
    else if (decoded(segment) === UPLOAD_SEGMENTS[matched]) matched += 1;
    else return path;
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

/** A request URL as it may be written to the log: credentials in the query or an upload path replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? redactPath(url) : `${redactPath(url.slice(0, q))}?${redactQuery(url.slice(q + 1))}`;
}

/**
 * The `req` serializer of every request log line (Fastify's own fields), with the URL redacted. Headers
 * are never logged, so neither Authorization nor cookies reach the log.
 */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
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
