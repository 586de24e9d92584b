import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, fail } from '../errors.ts';
import { JSON_TYPE } from './json-text.ts';
import { namesNothing, validationErrors } from './validation.ts';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

export function send(reply: FastifyReply, error: ApiError) {
  return reply.status(error.status).type(JSON_TYPE).send(error.body);
}

/** Answers a request with a failure in the envelope; a fault of the service is logged with its stack. */
export function answerError(request: FastifyRequest, reply: FastifyReply, error: FastifyError | Error) {
  const apiError = toApiError(error);
  if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.debug({ reason: apiError.message }, 'request refused');
  return send(reply, apiError);
}

/** Turns every failure, the framework's own included, into the standard envelope. */
export function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fe = error as FastifyError;
  if (fe.validation) {
    // A path id that is not one (`0x1`, `abc`, out of range) names nothing, like an id that exists nowhere.
    if (fe.validationContext === 'params' && namesNothing(fe.validation as never)) return fail.notFound();
    return fail.invalid(validationErrors(fe.validation as never, fe.validationContext));
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return fail.unsupportedMediaType('Unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return fail.payloadTooLarge('Request body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return fail.badRequest('Request body is empty but Content-Type is application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return fail.badRequest('Request body is not valid JSON');
  }
  if (fe.statusCode === 400 && error instanceof SyntaxError) return fail.badRequest('Request body is not valid JSON');
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError(
      fe.statusCode === 404
        ? 'not_found'
        : fe.statusCode === 413
          ? 'payload_too_large'
          : fe.statusCode === 415
            ? 'unsupported_media_type'
            : 'bad_request',
      [{ reason: error.message }],
    );
  }
  return fail.internal();
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => answerError(request, reply, error));

  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== request.method && app.findRoute({ method: m, url }));
    if (allowed.length > 0 && !app.findRoute({ method: request.method as (typeof METHODS)[number], url })) {
      reply.header('allow', allowed.join(', '));
      return send(reply, fail.methodNotAllowed(`Method ${request.method} is not allowed here; allowed: ${allowed.join(', ')}`));
    }
    return send(reply, fail.notFound());
  });
}
