import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { access } from '../../http/access.ts';
import { pageRequest } from '../../http/list.ts';
import { PageQuery, Paginated } from '../../http/schemas.ts';
import { slashIdParam } from '../../http/slash-id.ts';
import { type AccountScope, scopeOf } from '../account/principal.ts';
import { ImageParams, ImageSchema } from './image.schema.ts';
import { getImage, getImages } from './image.service.ts';

const tags = ['Images'];
/** Anonymous callers see public images; a token adds the account's private ones. */
const readImages = access('images:read_only', undefined, true);

function optionalScope(request: FastifyRequest): AccountScope | null {
  return request.principal ? scopeOf(request.principal) : null;
}

export const imageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/images',
    {
      schema: {
        operationId: 'getImages',
        tags,
        summary: 'List images',
        querystring: PageQuery,
        response: { 200: Paginated(ImageSchema) },
      },
      config: { access: readImages },
    },
    async (request) => getImages(app.ctx, optionalScope(request), pageRequest(request)),
  );
  app.get(
    '/images/*',
    {
      preValidation: slashIdParam('imageId'),
      schema: {
        operationId: 'getImage',
        tags,
        summary: 'View an image',
        params: ImageParams,
        response: { 200: ImageSchema },
      },
      config: { access: readImages, openapiPath: '/images/{imageId}' },
    },
    async (request) => getImage(app.ctx, optionalScope(request), request.params.imageId),
  );
};
