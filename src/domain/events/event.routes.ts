import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { access, principalOf } from '../account/route-access.ts';
import { EventParams, EventSchema } from './event.schema.ts';
import { getEvent, getEvents, markEventRead, markEventSeen } from './event.service.ts';

const tags = ['Account'];
const readEvents = access('events:read_only');

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/account/events',
    {
      schema: {
        operationId: 'getEvents',
        tags,
        summary: 'List events',
        querystring: PageQuery,
        response: { 200: Paginated(EventSchema) },
      },
      config: { access: readEvents },
    },
    async (request) => getEvents(ctx, scopeOf(principalOf(request)), pageRequest(request)),
  );
  app.get(
    '/account/events/:eventId',
    {
      schema: { operationId: 'getEvent', tags, summary: 'View an event', params: EventParams, response: { 200: EventSchema } },
      config: { access: readEvents },
    },
    async (request) => getEvent(ctx, scopeOf(principalOf(request)), request.params.eventId),
  );
  app.post(
    '/account/events/:eventId/read',
    {
      schema: { operationId: 'eventRead', tags, summary: 'Mark an event as read', params: EventParams, response: { 200: Empty } },
      config: { access: readEvents },
    },
    async (request) => {
      await markEventRead(ctx, scopeOf(principalOf(request)), request.params.eventId);
      return {};
    },
  );
  app.post(
    '/account/events/:eventId/seen',
    {
      schema: {
        operationId: 'eventSeen',
        tags,
        summary: 'Mark an event and all earlier ones as seen',
        params: EventParams,
        response: { 200: Empty },
      },
      config: { access: readEvents },
    },
    async (request) => {
      await markEventSeen(ctx, scopeOf(principalOf(request)), request.params.eventId);
      return {};
    },
  );
};
