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
  refuseOtherBodies(app, 'application/json');
  app.addHook('preValidation', withoutWaiting(noBodyIsEmptyObject));
}

/** A body of a type no parser of `app` takes is a 415 that says what to send; an empty one is no body. */
export function refuseOtherBodies(app: FastifyInstance, send: string): void {
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if (isBlank(body)) return done(null, undefined);
    done(fail.unsupportedMediaType(`Unsupported Content-Type: send ${send}`), undefined);
  });
}

/**
 * `multipart/form-data` (what a browser posts from a FormData) as its text fields, a name given twice
 * as a list of its values (as @fastify/formbody does with a form), read by the Fetch standard's own
 * parser that Node carries (undici's `Response.formData()`) within the body limit: no dependency, no
 * parsing of our own. A file, or a body that is not multipart with the boundary it names, is a 400.
 */
export function addFormDataParser(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, body, done) => {
    if (isBlank(body)) return done(null, undefined);
    formFields(body, request.headers['content-type'] ?? '').then(
      (fields) => done(null, fields),
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error)), undefined),
    );
  });
}

async function formFields(body: string | Buffer, contentType: string): Promise<Record<string, string | string[]>> {
  let parsed: FormData;
  try {
    parsed = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw fail.badRequest('Request body is not valid multipart/form-data (with the boundary its Content-Type names)');
  }
  const fields: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of parsed) {
    if (typeof value !== 'string') throw fail.badRequest('A file is not taken here: send text fields only', name);
    const before = fields[name];
    fields[name] = before === undefined ? value : [before, value].flat();
  }
  return fields;
}

function noBodyIsEmptyObject(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.body as { type?: unknown } | undefined;
  if (request.body === undefined && schema?.type === 'object') request.body = {};
}
