import type { FastifyReply, FastifyRequest } from 'fastify';
import { type JsonPage, jsonPageBody, type PageRequest } from '../db/paginate.ts';
import { fail } from '../errors.ts';
import { sendJsonText } from './json-text.ts';
import { type PageQueryT, SERVED_AT_MOST } from './schemas.ts';

const MAX_FILTER_BYTES = 8192;

/** The most rows a page of this route holds, when its page-size schema says fewer than it takes. */
function servedAtMost(request: FastifyRequest): number {
  const query = request.routeOptions.schema?.querystring as { properties?: { page_size?: Record<string, unknown> } } | undefined;
  const most = query?.properties?.page_size?.[SERVED_AT_MOST];
  return typeof most === 'number' ? most : Number.POSITIVE_INFINITY;
}

/** Reads `page`, `page_size` and the X-Filter header of a collection request. */
export function pageRequest(request: FastifyRequest<{ Querystring: PageQueryT }>): PageRequest {
  const page = request.query.page ?? 1;
  const pageSize = Math.min(request.query.page_size ?? 100, servedAtMost(request));
  const header = request.headers['x-filter'];
  if (header === undefined) return { page, pageSize };
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.length > MAX_FILTER_BYTES) throw fail.badRequest(`X-Filter is longer than ${MAX_FILTER_BYTES} bytes`, 'X-Filter');
  let filter: unknown;
  try {
    filter = JSON.parse(text);
  } catch {
    throw fail.badRequest('X-Filter is not valid JSON', 'X-Filter');
  }
  return { page, pageSize, filter, filterText: text };
}

/** A page already written as JSON text, sent as it is: no serializer runs. */
export function answerJsonPage(reply: FastifyReply, page: JsonPage): FastifyReply {
  return sendJsonText(reply, jsonPageBody(page));
}
