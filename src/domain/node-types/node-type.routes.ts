import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { publicAccess } from '../../http/access.ts';
import { pageRequest } from '../../http/list.ts';
import { PageQuery, Paginated } from '../../http/schemas.ts';
import { NodeTypeParams, NodeTypeSchema } from './node-type.schema.ts';
import { getNodeType, getNodeTypes } from './node-type.service.ts';

const tags = ['Node Types'];

export const nodeTypeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/node/types',
    {
      schema: {
        operationId: 'getNodeTypes',
        tags,
        summary: 'List node types',
        querystring: PageQuery,
        response: { 200: Paginated(NodeTypeSchema) },
      },
      config: { access: publicAccess },
    },
    async (request) => getNodeTypes(app.ctx, pageRequest(request)),
  );
  app.get(
    '/node/types/:typeId',
    {
      schema: {
        operationId: 'getNodeType',
        tags,
        summary: 'View a node type',
        params: NodeTypeParams,
        response: { 200: NodeTypeSchema },
      },
      config: { access: publicAccess },
    },
    async (request) => getNodeType(app.ctx, request.params.typeId),
  );
};
