import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Empty } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { principalOf } from '../account/route-access.ts';
import { readNodes, tags, writeNodes } from '../nodes/node.routes.ts';
import { NodeParams } from '../nodes/node.schema.ts';
import { NodeIpAddressSchema } from './ip-address.schema.ts';
import { AllocateIpBody, NodeIpParams, NodeIpsSchema, UpdateIpBody } from './node-ip.schema.ts';
import { addNodeIp, getNodeIp, getNodeIps, removeNodeIp, updateNodeIp } from './node-ip.service.ts';

export const nodeIpRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/node/instances/:nodeId/ips',
    {
      schema: {
        operationId: 'getNodeIPs',
        tags,
        summary: "List a node's addresses",
        params: NodeParams,
        response: { 200: NodeIpsSchema },
      },
      config: { access: readNodes },
    },
    async (request) => getNodeIps(ctx, scopeOf(principalOf(request)), request.params.nodeId),
  );
  app.post(
    '/node/instances/:nodeId/ips',
    {
      schema: {
        operationId: 'addNodeIP',
        tags,
        summary: 'Allocate an IPv4 address to a node',
        params: NodeParams,
        body: AllocateIpBody,
        response: { 200: NodeIpAddressSchema },
      },
      config: { access: writeNodes },
    },
    async (request) => addNodeIp(ctx, principalOf(request), request.params.nodeId, request.body),
  );
  app.get(
    '/node/instances/:nodeId/ips/:address',
    {
      schema: {
        operationId: 'getNodeIP',
        tags,
        summary: "View one of a node's addresses",
        params: NodeIpParams,
        response: { 200: NodeIpAddressSchema },
      },
      config: { access: readNodes },
    },
    async (request) => getNodeIp(ctx, scopeOf(principalOf(request)), request.params.nodeId, request.params.address),
  );
  app.put(
    '/node/instances/:nodeId/ips/:address',
    {
      schema: {
        operationId: 'updateNodeIP',
        tags,
        summary: "Set an address's reverse DNS",
        params: NodeIpParams,
        body: UpdateIpBody,
        response: { 200: NodeIpAddressSchema },
      },
      config: { access: writeNodes },
    },
    async (request) => updateNodeIp(ctx, principalOf(request), request.params.nodeId, request.params.address, request.body.rdns),
  );
  app.delete(
    '/node/instances/:nodeId/ips/:address',
    {
      schema: {
        operationId: 'removeNodeIP',
        tags,
        summary: 'Remove an address from a node',
        params: NodeIpParams,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      await removeNodeIp(ctx, principalOf(request), request.params.nodeId, request.params.address);
      return {};
    },
  );
};
