import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Empty } from '../../../http/schemas.ts';
import { principalOf } from '../../account/route-access.ts';
import { tags, writeNodes } from '../node.routes.ts';
import { BootBody, NodeParams } from '../node.schema.ts';
import { bootNode, rebootNode, shutdownNode } from './node-lifecycle.service.ts';

export const nodeLifecycleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.post(
    '/node/instances/:nodeId/boot',
    {
      schema: {
        operationId: 'bootNodeInstance',
        tags,
        summary: 'Boot a node',
        params: NodeParams,
        body: BootBody,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      await bootNode(ctx, principalOf(request), request.params.nodeId, request.body.config_id);
      return {};
    },
  );
  app.post(
    '/node/instances/:nodeId/reboot',
    {
      schema: {
        operationId: 'rebootNodeInstance',
        tags,
        summary: 'Reboot a node',
        params: NodeParams,
        body: BootBody,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      await rebootNode(ctx, principalOf(request), request.params.nodeId, request.body.config_id);
      return {};
    },
  );
  app.post(
    '/node/instances/:nodeId/shutdown',
    {
      schema: {
        operationId: 'shutdownNodeInstance',
        tags,
        summary: 'Shut a node down',
        params: NodeParams,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      await shutdownNode(ctx, principalOf(request), request.params.nodeId);
      return {};
    },
  );
};
