import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scopeOf } from '../../account/principal.ts';
import { principalOf } from '../../account/route-access.ts';
import { readNodes, tags } from '../node.routes.ts';
import { NodeParams } from '../node.schema.ts';
import {
  NodeStatsSchema,
  NodeTransferMonthSchema,
  NodeTransferSchema,
  StatsMonthParams,
  TransferMonthParams,
} from './node-stats.schema.ts';
import { getNodeStats, getNodeStatsForMonth, getNodeTransfer, getNodeTransferForMonth } from './node-stats.service.ts';

export const nodeStatsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const config = { access: readNodes };
  app.get(
    '/node/instances/:nodeId/stats',
    {
      schema: {
        operationId: 'getNodeStats',
        tags,
        summary: "A node's usage over the past day",
        params: NodeParams,
        response: { 200: NodeStatsSchema },
      },
      config,
    },
    async (request) => getNodeStats(ctx, scopeOf(principalOf(request)), request.params.nodeId),
  );
  app.get(
    '/node/instances/:nodeId/stats/:year/:month',
    {
      schema: {
        operationId: 'getNodeStatsByYearMonth',
        tags,
        summary: "A node's usage over a month",
        params: StatsMonthParams,
        response: { 200: NodeStatsSchema },
      },
      config,
    },
    async (request) => {
      const { nodeId, year, month } = request.params;
      return getNodeStatsForMonth(ctx, scopeOf(principalOf(request)), nodeId, year, month);
    },
  );
  app.get(
    '/node/instances/:nodeId/transfer',
    {
      schema: {
        operationId: 'getNodeTransfer',
        tags,
        summary: "A node's network transfer this month",
        params: NodeParams,
        response: { 200: NodeTransferSchema },
      },
      config,
    },
    async (request) => getNodeTransfer(ctx, scopeOf(principalOf(request)), request.params.nodeId),
  );
  app.get(
    '/node/instances/:nodeId/transfer/:year/:month',
    {
      schema: {
        operationId: 'getNodeTransferByYearMonth',
        tags,
        summary: "A node's network transfer in a month",
        params: TransferMonthParams,
        response: { 200: NodeTransferMonthSchema },
      },
      config,
    },
    async (request) => {
      const { nodeId, year, month } = request.params;
      return getNodeTransferForMonth(ctx, scopeOf(principalOf(request)), nodeId, year, month);
    },
  );
};
