import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../http/access.ts';
import { pageRequest } from '../../http/list.ts';
import { PageQuery, Paginated, StringEnum, Timestamp } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { readNodes, tags } from './node.routes.ts';
import { NodeParams } from './node.schema.ts';
import { getNodeFirewalls } from './node-firewall.service.ts';

const Policy = StringEnum(['ACCEPT', 'DROP'] as const);
const Rule = Type.Object({
  protocol: StringEnum(['TCP', 'UDP', 'ICMP'] as const),
  ports: Type.String(),
  addresses: Type.Object({ ipv4: Type.Array(Type.String()), ipv6: Type.Array(Type.String()) }),
  action: Policy,
  label: Type.String(),
  description: Type.String(),
});

/** The firewall record as listed for a node; the firewalls group will own it (and this list) when it lands. */
const NodeFirewallSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  created: Timestamp,
  updated: Timestamp,
  status: StringEnum(['enabled', 'disabled', 'deleted'] as const),
  rules: Type.Object({ inbound: Type.Array(Rule), outbound: Type.Array(Rule), inbound_policy: Policy, outbound_policy: Policy }),
  tags: Type.Array(Type.String()),
});

export const nodeFirewallRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/node/instances/:nodeId/firewalls',
    {
      schema: {
        operationId: 'getNodeFirewalls',
        tags,
        summary: 'List the firewalls assigned to a node',
        params: NodeParams,
        querystring: PageQuery,
        response: { 200: Paginated(NodeFirewallSchema) },
      },
      config: { access: readNodes },
    },
    async (request) => {
      return getNodeFirewalls(ctx, scopeOf(principalOf(request)), request.params.nodeId, pageRequest(request));
    },
  );
};
