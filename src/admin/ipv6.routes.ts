import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ipv6PoolSchema, Ipv6RangeSchema } from '../domain/networking/ipv6.schema.ts';
import { addPool, addRange, removeBlock } from '../domain/networking/ipv6-operator.service.ts';
import { Empty } from '../http/schemas.ts';
import { AddIpv6PoolBody, AddIpv6RangeBody, Ipv6BlockParams } from './admin.schema.ts';

/** IPv6 blocks, which the reference lets no user create (a range is asked for by support ticket). */
export const ipv6Routes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.post(
    '/ipv6/ranges',
    {
      schema: {
        operationId: 'addIpv6Range',
        summary: "Route a new /64 or /56 of the node's region's IPv6 prefix to the node",
        body: AddIpv6RangeBody,
        response: { 200: Ipv6RangeSchema },
      },
    },
    async (request) => addRange(ctx, request.body.node_id, request.body.prefix_length ?? 64),
  );
  app.post(
    '/ipv6/pools',
    {
      schema: {
        operationId: 'addIpv6Pool',
        summary: "Give an account a new /124 of the region's IPv6 prefix, routed to all its nodes there",
        body: AddIpv6PoolBody,
        response: { 200: Ipv6PoolSchema },
      },
    },
    async (request) => addPool(ctx, request.body.account_id, request.body.region),
  );
  app.delete(
    '/ipv6/:range',
    {
      schema: {
        operationId: 'removeIpv6Block',
        summary: 'Take back the IPv6 pool or range that starts at this address',
        params: Ipv6BlockParams,
        response: { 200: Empty },
      },
    },
    async (request) => {
      await removeBlock(ctx, request.params.range);
      return {};
    },
  );
};
