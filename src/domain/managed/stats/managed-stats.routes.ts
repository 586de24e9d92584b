import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../account/route-access.ts';
import { readManaged, managedTags as tags } from '../managed-access.ts';
import { ManagedStatsSchema } from './managed-stats.schema.ts';
import { getManagedStats } from './managed-stats.service.ts';

export const managedStatsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/managed/stats',
    {
      schema: {
        operationId: 'getManagedStats',
        tags,
        summary: "The past day's usage of the account's managed nodes, added up",
        response: { 200: ManagedStatsSchema },
      },
      config: { access: readManaged },
    },
    async (request) => getManagedStats(ctx, principalOf(request).accountId),
  );
};
