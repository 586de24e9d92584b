import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setNodeIpAllowance } from '../domain/networking/node-ip-allowance.service.ts';
import { IpAllowanceBody, IpAllowanceSchema, NodeParams } from './admin.schema.ts';

/** What the operator grants on request (a support ticket's answer): more public IPv4 addresses for a node. */
export const allowanceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.put(
    '/nodes/:nodeId/ip-allowance',
    {
      schema: {
        operationId: 'setNodeIpAllowance',
        summary: 'Let a node hold this many public IPv4 addresses in all (it may allocate more than its first)',
        params: NodeParams,
        body: IpAllowanceBody,
        response: { 200: IpAllowanceSchema },
      },
    },
    async (request) => setNodeIpAllowance(ctx, request.params.nodeId, request.body.public_ipv4),
  );
};
