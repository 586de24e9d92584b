import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../../http/schemas.ts';
import { scopeOf } from '../../account/principal.ts';
import { principalOf } from '../../account/route-access.ts';
import { readNodes, tags, writeNodes } from '../node.routes.ts';
import { NodeParams } from '../node.schema.ts';
import { ConfigParams, ConfigSchema, CreateConfigBody, UpdateConfigBody } from './config.schema.ts';
import { createConfig, deleteConfig, getConfig, getConfigs, updateConfig } from './config.service.ts';

export const configRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/node/instances/:nodeId/configs',
    {
      schema: {
        operationId: 'getNodeConfigs',
        tags,
        summary: "List a node's config profiles",
        params: NodeParams,
        querystring: PageQuery,
        response: { 200: Paginated(ConfigSchema) },
      },
      config: { access: readNodes },
    },
    async (request) => getConfigs(ctx, scopeOf(principalOf(request)), request.params.nodeId, pageRequest(request)),
  );
  app.post(
    '/node/instances/:nodeId/configs',
    {
      schema: {
        operationId: 'addNodeConfig',
        tags,
        summary: 'Add a config profile',
        params: NodeParams,
        body: CreateConfigBody,
        response: { 200: ConfigSchema },
      },
      config: { access: writeNodes },
    },
    async (request) => createConfig(ctx, principalOf(request), request.params.nodeId, request.body),
  );
  app.get(
    '/node/instances/:nodeId/configs/:configId',
    {
      schema: {
        operationId: 'getNodeConfig',
        tags,
        summary: 'View a config profile',
        params: ConfigParams,
        response: { 200: ConfigSchema },
      },
      config: { access: readNodes },
    },
    async (request) => getConfig(ctx, scopeOf(principalOf(request)), request.params.nodeId, request.params.configId),
  );
  app.put(
    '/node/instances/:nodeId/configs/:configId',
    {
      schema: {
        operationId: 'updateNodeConfig',
        tags,
        summary: 'Update a config profile',
        params: ConfigParams,
        body: UpdateConfigBody,
        response: { 200: ConfigSchema },
      },
      config: { access: writeNodes },
    },
    async (request) => updateConfig(ctx, principalOf(request), request.params.nodeId, request.params.configId, request.body),
  );
  app.delete(
    '/node/instances/:nodeId/configs/:configId',
    {
      schema: {
        operationId: 'deleteNodeConfig',
        tags,
        summary: 'Delete a config profile',
        params: ConfigParams,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      await deleteConfig(ctx, principalOf(request), request.params.nodeId, request.params.configId);
      return {};
    },
  );
};
