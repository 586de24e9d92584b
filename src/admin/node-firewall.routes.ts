import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getNodeNftables } from '../domain/firewalls/node-nftables.service.ts';
import { NodeFirewallSchema, NodeParams } from './admin.schema.ts';

/** What a node's firewall comes to: the nftables ruleset of its enabled firewall, or of none. */
export const nodeFirewallRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/nodes/:nodeId/firewall',
    {
      schema: {
        operationId: 'getNodeFirewallRuleset',
        summary: "A node's effective firewall (its enabled one, or none) as an nftables ruleset",
        params: NodeParams,
        response: { 200: NodeFirewallSchema },
      },
    },
    async (request) => getNodeNftables(ctx, request.params.nodeId),
  );
};
