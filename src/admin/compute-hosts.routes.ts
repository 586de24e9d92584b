import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ComputeHostsSchema } from './admin.schema.ts';
import { listComputeHosts } from './compute-hosts.service.ts';

/** The compute agents (`cumulo agent`) with their capacity and liveness. */
export const computeHostRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/hosts',
    {
      schema: {
        operationId: 'listComputeHosts',
        summary: 'The compute agents that have reported: regions, memory and disk, machines, liveness',
        response: { 200: ComputeHostsSchema },
      },
    },
    async () => listComputeHosts(ctx),
  );
};
