import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApiError, fail } from '../errors.ts';
import { send } from './error-handler.ts';

/** The longest path parameter the router takes. */
export const MAX_PARAM_LENGTH = 256;

/**
 * What the router meets before any route runs (Fastify's `frameworkErrors`): a path parameter over
 * the limit, a path whose %-escapes do not decode. Answered in the envelope, before authentication
 * (nothing is looked up), without echoing the URL.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  const apiError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? fail.uriTooLong(`A path segment is longer than ${MAX_PARAM_LENGTH} characters`)
      : error.code === 'FST_ERR_BAD_URL'
        ? fail.badRequest('The request path is not valid: a %-escape in it does not decode')
        : fail.internal();
  if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
  send(reply, apiError);
}

function connectionError(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return fail.headersTooLarge('The request line and headers are too large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return fail.requestTimeout('The request did not arrive in time');
  return fail.badRequest('Malformed HTTP request');
}

/**
 * Requests Node's HTTP parser refuses (malformed, headers over the limit, too slow) never reach
 * Fastify; Node calls this with the socket. The answer is written raw, in the envelope, and the
 * connection closed, since what follows on it cannot be read.
 */
export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err }, 'malformed request');
  // Node's own handler does the same check: never write into a response already under way.
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const apiError = connectionError(err.code);
    const body = JSON.stringify({ errors: apiError.errors });
    socket.end(
      `HTTP/1.1 ${apiError.status} ${http.STATUS_CODES[apiError.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    socket.destroySoon();
    return;
  }
  socket.destroy(err);
}
