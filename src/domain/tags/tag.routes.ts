import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, LimitedPageQuery, Paginated } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { access, principalOf } from '../account/route-access.ts';
import { CreateTagBody, TaggedObjectSchema, TagParams, TagSchema } from './tag.schema.ts';
import { getTaggedObjects, getTags } from './tag-list.service.ts';
import { createTag, deleteTag } from './tag-write.service.ts';

const tags = ['Tags'];
const readTags = access('account:read_only');
// Making and deleting tags is for unrestricted users (the specification's grants).
const writeTags = access('account:read_write', 'unrestricted');

export const tagRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/tags',
    {
      schema: {
        operationId: 'getTags',
        tags,
        summary: 'List tags',
        querystring: LimitedPageQuery,
        response: { 200: Paginated(TagSchema) },
      },
      config: { access: readTags },
    },
    async (request) => getTags(ctx, scopeOf(principalOf(request)), pageRequest(request)),
  );
  app.post(
    '/tags',
    {
      schema: {
        operationId: 'createTag',
        tags,
        summary: 'Make a tag, and tag objects with it',
        body: CreateTagBody,
        response: { 200: TagSchema },
      },
      config: { access: writeTags },
    },
    async (request) => createTag(ctx, principalOf(request), request.body),
  );
  app.get(
    '/tags/:label',
    {
      schema: {
        operationId: 'getTaggedObjects',
        tags,
        summary: 'List the objects carrying a tag',
        params: TagParams,
        querystring: LimitedPageQuery,
        response: { 200: Paginated(TaggedObjectSchema) },
      },
      config: { access: readTags },
      // The schema documents the page. Its items are nodes or domains, which the fast serializer would
      // tell apart by validating each one against both schemas (and our second-precision timestamps
      // carry no zone, which its date-time check wants); the services build each object to its schema.
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (request) => getTaggedObjects(ctx, scopeOf(principalOf(request)), request.params.label, pageRequest(request)),
  );
  app.delete(
    '/tags/:label',
    {
      schema: {
        operationId: 'deleteTag',
        tags,
        summary: 'Take a tag off every object and delete it',
        params: TagParams,
        response: { 200: Empty },
      },
      config: { access: writeTags },
    },
    async (request) => {
      await deleteTag(ctx, principalOf(request), request.params.label);
      return {};
    },
  );
};
