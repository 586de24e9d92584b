import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { answerJsonPage, pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { access, principalOf } from '../account/route-access.ts';
import { CreateNodeBody, NodeParams, NodeSchema, UpdateNodeBody } from './node.schema.ts';
import { deleteNode, getNode, getNodesPage, updateNode } from './node.service.ts';
import { createNode } from './node-create.service.ts';

export const tags = ['Node Instances'];
export const readNodes = access('nodes:read_only');
export const writeNodes = access('nodes:read_write');

export const nodeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/node/instances',
    {
      schema: {
        operationId: 'getNodeInstances',
        tags,
        summary: 'List nodes',
        querystring: PageQuery,
        response: { 200: Paginated(NodeSchema) },
      },
      config: { access: readNodes },
    },
    async (request, reply) => answerJsonPage(reply, await getNodesPage(ctx, scopeOf(principalOf(request)), pageRequest(request))),
  );
  app.post(
    '/node/instances',
    {
      schema: {
        operationId: 'createNodeInstance',
        tags,
        summary: 'Create a node',
        body: CreateNodeBody,
        response: { 200: NodeSchema },
      },
      config: { access: access('nodes:read_write', 'add_nodes') },
    },
    async (request) => createNode(ctx, principalOf(request), request.body),
  );
  app.get(
    '/node/instances/:nodeId',
    {
      schema: { operationId: 'getNodeInstance', tags, summary: 'View a node', params: NodeParams, response: { 200: NodeSchema } },
      config: { access: readNodes },
    },
    async (request) => getNode(ctx, scopeOf(principalOf(request)), request.params.nodeId),
  );
  app.put(
    '/node/instances/:nodeId',
    {
      schema: {
        operationId: 'updateNodeInstance',
        tags,
        summary: 'Update a node',
        params: NodeParams,
        body: UpdateNodeBody,
        response: { 200: NodeSchema },
      },
      config: { access: writeNodes },
    },
    async (request) => updateNode(ctx, principalOf(request), request.params.nodeId, request.body),
  );
  app.delete(
    '/node/instances/:nodeId',
    {
      schema: { operationId: 'deleteNodeInstance', tags, summary: 'Delete a node', params: NodeParams, response: { 200: Empty } },
      config: { access: writeNodes },
    },
    async (request) => {
      await deleteNode(ctx, principalOf(request), request.params.nodeId);
      return {};
    },
  );
};
