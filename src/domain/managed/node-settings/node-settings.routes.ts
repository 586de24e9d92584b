import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../../http/list.ts';
import { PageQuery, Paginated } from '../../../http/schemas.ts';
import { scopeOf } from '../../account/principal.ts';
import { principalOf } from '../../account/route-access.ts';
import { NodeParams } from '../../nodes/node.schema.ts';
import { readManaged, managedTags as tags, writeManaged } from '../managed-access.ts';
import { NodeSettingsSchema, UpdateNodeSettingsBody } from './node-settings.schema.ts';
import { getNodeSettings, getNodeSettingsList, updateNodeSettings } from './node-settings.service.ts';

export const nodeSettingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/managed/node-settings',
    {
      schema: {
        operationId: 'getManagedNodeSettings',
        tags,
        summary: "List the managed settings of the account's nodes",
        querystring: PageQuery,
        response: { 200: Paginated(NodeSettingsSchema) },
      },
      config: { access: readManaged },
    },
    async (request) => getNodeSettingsList(ctx, scopeOf(principalOf(request)), pageRequest(request)),
  );
  app.get(
    '/managed/node-settings/:nodeId',
    {
      schema: {
        operationId: 'getManagedNodeSetting',
        tags,
        summary: "View a node's managed settings",
        params: NodeParams,
        response: { 200: NodeSettingsSchema },
      },
      config: { access: readManaged },
    },
    async (request) => getNodeSettings(ctx, scopeOf(principalOf(request)), request.params.nodeId),
  );
  app.put(
    '/managed/node-settings/:nodeId',
    {
      schema: {
        operationId: 'updateManagedNodeSetting',
        tags,
        summary: "Change a node's managed SSH settings",
        params: NodeParams,
        body: UpdateNodeSettingsBody,
        response: { 200: NodeSettingsSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => updateNodeSettings(ctx, scopeOf(principalOf(request)), request.params.nodeId, request.body),
  );
};
