import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, LimitedPageQuery, Paginated } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { principalOf } from '../account/route-access.ts';
import { tags as nodeTags, readNodes } from '../nodes/node.routes.ts';
import { NodeParams } from '../nodes/node.schema.ts';
import { readFirewalls, tags, writeFirewalls } from './firewall.routes.ts';
import { CreateDeviceBody, DeviceParams, FirewallDeviceSchema, FirewallParams, FirewallSchema } from './firewall.schema.ts';
import { addDevice, getDevice, getDevices, getNodeFirewalls, removeDevice } from './firewall-device.service.ts';

export const firewallDeviceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/networking/firewalls/:firewallId/devices',
    {
      schema: {
        operationId: 'getFirewallDevices',
        tags,
        summary: "List a firewall's devices",
        params: FirewallParams,
        querystring: LimitedPageQuery,
        response: { 200: Paginated(FirewallDeviceSchema) },
      },
      config: { access: readFirewalls },
    },
    async (request) => getDevices(ctx, scopeOf(principalOf(request)), request.params.firewallId, pageRequest(request)),
  );
  app.post(
    '/networking/firewalls/:firewallId/devices',
    {
      schema: {
        operationId: 'createFirewallDevice',
        tags,
        summary: 'Assign a firewall to a node',
        params: FirewallParams,
        body: CreateDeviceBody,
        response: { 200: FirewallDeviceSchema },
      },
      config: { access: writeFirewalls },
    },
    async (request) => addDevice(ctx, principalOf(request), request.params.firewallId, request.body),
  );
  app.get(
    '/networking/firewalls/:firewallId/devices/:deviceId',
    {
      schema: {
        operationId: 'getFirewallDevice',
        tags,
        summary: 'View a firewall device',
        params: DeviceParams,
        response: { 200: FirewallDeviceSchema },
      },
      config: { access: readFirewalls },
    },
    async (request) => getDevice(ctx, scopeOf(principalOf(request)), request.params.firewallId, request.params.deviceId),
  );
  app.delete(
    '/networking/firewalls/:firewallId/devices/:deviceId',
    {
      schema: {
        operationId: 'deleteFirewallDevice',
        tags,
        summary: 'Take a firewall off a node',
        params: DeviceParams,
        response: { 200: Empty },
      },
      config: { access: writeFirewalls },
    },
    async (request) => {
      await removeDevice(ctx, principalOf(request), request.params.firewallId, request.params.deviceId);
      return {};
    },
  );
  app.get(
    '/node/instances/:nodeId/firewalls',
    {
      schema: {
        operationId: 'getNodeFirewalls',
        tags: nodeTags,
        summary: 'List the firewalls assigned to a node',
        params: NodeParams,
        querystring: LimitedPageQuery,
        response: { 200: Paginated(FirewallSchema) },
      },
      config: { access: readNodes },
    },
    async (request) => getNodeFirewalls(ctx, scopeOf(principalOf(request)), request.params.nodeId, pageRequest(request)),
  );
};
