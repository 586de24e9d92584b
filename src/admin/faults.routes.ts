import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { enterMaintenance, powerOffUnexpectedly } from '../domain/nodes/lifecycle/node-faults.service.ts';
import {
  FaultsSchema,
  MaintenanceSchema,
  NodeParams,
  PowerOffSchema,
  RegionParams,
  RegionStatusBody,
  RequestFaultBody,
} from './admin.schema.ts';
import { clearFaults, listFaults, setRegionStatus, setRequestFault } from './faults.service.ts';

/** Faults: failing and slow requests, region outages, node maintenance and crashes. */
export const faultRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/faults',
    {
      schema: {
        operationId: 'getFaults',
        summary: 'The active request fault and region outages',
        response: { 200: FaultsSchema },
      },
    },
    async () => listFaults(ctx),
  );
  app.put(
    '/faults',
    {
      schema: {
        operationId: 'setRequestFault',
        summary: 'Make a share of matching v4 requests fail with a 5xx and/or wait',
        body: RequestFaultBody,
        response: { 200: FaultsSchema },
      },
    },
    async (request) => setRequestFault(ctx, request.body),
  );
  app.delete(
    '/faults',
    {
      schema: {
        operationId: 'clearFaults',
        summary: 'End the request fault and every region outage',
        response: { 200: FaultsSchema },
      },
    },
    async () => clearFaults(ctx),
  );
  app.put(
    '/regions/:regionId',
    {
      schema: {
        operationId: 'setRegionStatus',
        summary: 'Mark a region as having an outage (creates there fail) or as ok',
        params: RegionParams,
        body: RegionStatusBody,
        response: { 200: FaultsSchema },
      },
    },
    async (request) => setRegionStatus(ctx, request.params.regionId, request.body.status),
  );
  app.post(
    '/nodes/:nodeId/maintenance',
    {
      schema: {
        operationId: 'nodeMaintenance',
        summary: 'Platform maintenance: the node ends up stopped',
        params: NodeParams,
        response: { 200: MaintenanceSchema },
      },
    },
    async (request) => {
      await enterMaintenance(ctx, request.params.nodeId);
      return { status: 'stopped' };
    },
  );
  app.post(
    '/nodes/:nodeId/power-off',
    {
      schema: {
        operationId: 'nodePowerOff',
        summary: 'The node powers off unexpectedly; its shutdown watchdog may boot it',
        params: NodeParams,
        response: { 200: PowerOffSchema },
      },
    },
    async (request) => {
      const outcome = await powerOffUnexpectedly(ctx, request.params.nodeId);
      return { status: 'offline', watchdog_boot: outcome.watchdogBoot };
    },
  );
};
