import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getNodeNftables } from '../domain/firewalls/node-nftables.service.ts';
import { getNodePorts } from '../domain/nodes/compute/node-ports.service.ts';
import { NodeFirewallSchema, NodeParams, NodePortsSchema } from './admin.schema.ts';

/** How a real node is reached from the host, and what its firewall comes to: the nftables ruleset of its enabled firewall, or of none. */
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
  app.get(
    '/nodes/:nodeId/ports',
    {
      schema: {
        operationId: 'getNodePorts',
        summary: "The host ports forwarded to a node's guest ports (user networking)",
        params: NodeParams,
        response: { 200: NodePortsSchema },
      },
    },
    async (request) => getNodePorts(ctx, request.params.nodeId),
  );
};
