import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { publicAccess } from '../../http/access.ts';
import { pageRequest } from '../../http/list.ts';
import { PageQuery, Paginated } from '../../http/schemas.ts';
import { RegionParams, RegionSchema } from './region.schema.ts';
import { getRegion, getRegions } from './region.service.ts';

export const regionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/regions',
    {
      schema: {
        operationId: 'getRegions',
        tags: ['Regions'],
        summary: 'List regions',
        querystring: PageQuery,
        response: { 200: Paginated(RegionSchema) },
      },
      config: { access: publicAccess },
    },
    async (request) => getRegions(app.ctx, pageRequest(request)),
  );
  app.get(
    '/regions/:regionId',
    {
      schema: {
        operationId: 'getRegion',
        tags: ['Regions'],
        summary: 'View a region',
        params: RegionParams,
        response: { 200: RegionSchema },
      },
      config: { access: publicAccess },
    },
    async (request) => getRegion(app.ctx, request.params.regionId),
  );
};
