import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fail } from '../errors.ts';
import { withoutWaiting } from './front-door.ts';
import { MAX_BODY_DEPTH, nestsDeeperThan } from './input-rules.ts';

const text = (body: string | Buffer) => (typeof body === 'string' ? body : body.toString('utf8'));
const isBlank = (body: string | Buffer) => text(body).trim() === '';

/**
 * Request bodies are JSON. An empty body counts as no body whatever its Content-Type: clients
 * (`curl -d ''`, form-posting HTTP libraries, `Content-Type: application/json` with nothing after
 * it, a chunked body of zero bytes) send one on action endpoints that take none. A body that is
 * there but not JSON is a 415; malformed JSON, or JSON nested deeper than MAX_BODY_DEPTH, a 400. Where a route takes a JSON object, no body is
 * the empty object: its optional fields take their defaults, its required ones are named as missing.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (isBlank(body)) return done(null, undefined);
    parseJson(request, text(body), (error, parsed) => {
      if (error) return done(error, undefined);
      if (nestsDeeperThan(parsed, MAX_BODY_DEPTH)) {
        return done(fail.badRequest(`Nested more than ${MAX_BODY_DEPTH} levels deep`, 'body'), undefined);
      }
      done(null, parsed);
    });
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if (isBlank(body)) return done(null, undefined);
    done(fail.unsupportedMediaType('Unsupported Content-Type: send application/json'), undefined);
  });
  app.addHook('preValidation', withoutWaiting(noBodyIsEmptyObject));
}

function noBodyIsEmptyObject(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.body as { type?: unknown } | undefined;
  if (request.body === undefined && schema?.type === 'object') request.body = {};
}
