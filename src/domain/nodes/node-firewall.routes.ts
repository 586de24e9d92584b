import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { compileFilter, type FilterSpec } from '../../db/filter.ts';
import { principalOf } from '../../http/access.ts';
import { pageRequest } from '../../http/list.ts';
import { PageQuery, Paginated, StringEnum, Timestamp } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { readNodes, tags } from './node.routes.ts';
import { NodeParams } from './node.schema.ts';
import { nodeFor } from './node-access.ts';

const Policy = StringEnum(['ACCEPT', 'DROP'] as const);
const Rule = Type.Object({
  protocol: StringEnum(['TCP', 'UDP', 'ICMP'] as const),
  ports: Type.String(),
  addresses: Type.Object({ ipv4: Type.Array(Type.String()), ipv6: Type.Array(Type.String()) }),
  action: Policy,
  label: Type.String(),
  description: Type.String(),
});

/** The firewall fields the service description marks Filterable. */
const FIREWALL_FILTER: FilterSpec = {
  fields: {
    id: { column: 'id', type: 'integer' },
    label: { column: 'label', type: 'string' },
    tags: { column: 'tags', type: 'string', sortable: false },
  },
  tiebreak: 'id',
};

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
      await nodeFor(ctx.db, scopeOf(principalOf(request)), request.params.nodeId, 'read_only');
      // Filled from the firewall devices table once the firewalls group adds it; the filter is
      // checked as any list checks it, so a bad one is a 400 already.
      const { page, filter } = pageRequest(request);
      compileFilter(filter, FIREWALL_FILTER);
      return { data: [], page, pages: 1, results: 0 };
    },
  );
};
