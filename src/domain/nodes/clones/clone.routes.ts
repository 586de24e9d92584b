import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../account/route-access.ts';
import { tags, writeNodes } from '../node.routes.ts';
import { NodeParams, NodeSchema } from '../node.schema.ts';
import { CloneNodeBody } from './clone.schema.ts';
import { cloneNode } from './clone.service.ts';

export const cloneRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.post(
    '/node/instances/:nodeId/clone',
    {
      schema: {
        operationId: 'cloneNodeInstance',
        tags,
        summary: 'Clone a node',
        params: NodeParams,
        body: CloneNodeBody,
        response: { 200: NodeSchema },
      },
      // Cloning to a new node also needs add_nodes; the service checks it, as cloning to an existing one does not.
      config: { access: writeNodes },
    },
    async (request) => cloneNode(ctx, principalOf(request), request.params.nodeId, request.body),
  );
};
