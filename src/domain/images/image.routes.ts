import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { pageRequest } from '../../http/list.ts';
import { publicBaseUrl } from '../../http/public-url.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { slashIdParam } from '../../http/slash-id.ts';
import { type AccountScope, scopeOf } from '../account/principal.ts';
import { access, principalOf } from '../account/route-access.ts';
import {
  CreateImageBody,
  ImageParams,
  ImageSchema,
  ImageUploadSchema,
  UpdateImageBody,
  UploadImageBody,
} from './image.schema.ts';
import { deleteImage, getImage, getImages, updateImage } from './image.service.ts';
import { createImage } from './image-create.service.ts';
import { startImageUpload } from './image-upload.service.ts';

const tags = ['Images'];
/** Anonymous callers see public images; a token adds the account's private ones. */
const readImages = access('images:read_only', undefined, true);
const writeImages = access('images:read_write');

function optionalScope(request: FastifyRequest): AccountScope | null {
  return request.principal ? scopeOf(request.principal) : null;
}

export const imageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
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
    async (request) => getImages(ctx, optionalScope(request), pageRequest(request)),
  );
  app.post(
    '/images',
    {
      schema: {
        operationId: 'createImage',
        tags,
        summary: 'Capture a private image from a node disk',
        body: CreateImageBody,
        response: { 200: ImageSchema },
      },
      config: { access: access(['images:read_write', 'nodes:read_only'], 'add_images') },
    },
    async (request) => createImage(ctx, principalOf(request), request.body),
  );
  app.post(
    '/images/upload',
    {
      schema: {
        operationId: 'uploadImage',
        tags,
        summary: 'Start an image upload',
        description: 'Creates a pending_upload private image and returns the URL to PUT its gzip-compressed data to.',
        body: UploadImageBody,
        response: { 200: ImageUploadSchema },
      },
      config: { access: access('images:read_write', 'add_images') },
    },
    async (request) => startImageUpload(ctx, principalOf(request), request.body, publicBaseUrl(request, ctx.config.publicUrl)),
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
    async (request) => getImage(ctx, optionalScope(request), request.params.imageId),
  );
  app.put(
    '/images/*',
    {
      preValidation: slashIdParam('imageId'),
      schema: {
        operationId: 'updateImage',
        tags,
        summary: "Change a private image's label or description",
        params: ImageParams,
        body: UpdateImageBody,
        response: { 200: ImageSchema },
      },
      config: { access: writeImages, openapiPath: '/images/{imageId}' },
    },
    async (request) => updateImage(ctx, principalOf(request), request.params.imageId, request.body),
  );
  app.delete(
    '/images/*',
    {
      preValidation: slashIdParam('imageId'),
      schema: {
        operationId: 'deleteImage',
        tags,
        summary: 'Delete a private image and its data',
        params: ImageParams,
        response: { 200: Empty },
      },
      config: { access: writeImages, openapiPath: '/images/{imageId}' },
    },
    async (request) => {
      await deleteImage(ctx, principalOf(request), request.params.imageId);
      return {};
    },
  );
};
