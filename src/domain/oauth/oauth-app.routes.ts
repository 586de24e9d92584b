import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { access, principalOf } from '../account/route-access.ts';
import { AppParams, AuthorizedAppSchema } from './oauth-app.schema.ts';
import { getApp, getApps, revokeApp } from './oauth-app.service.ts';

const tags = ['Profile'];
const read = access('account:read_only');
const write = access('account:read_write');

export const oauthAppRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/profile/apps',
    {
      schema: {
        operationId: 'getProfileApps',
        tags,
        summary: 'List the OAuth apps you have let into your account',
        querystring: PageQuery,
        response: { 200: Paginated(AuthorizedAppSchema) },
      },
      config: { access: read },
    },
    async (request) => getApps(ctx, principalOf(request), pageRequest(request)),
  );
  app.get(
    '/profile/apps/:appId',
    {
      schema: {
        operationId: 'getProfileApp',
        tags,
        summary: 'View an app you have authorized',
        params: AppParams,
        response: { 200: AuthorizedAppSchema },
      },
      config: { access: read },
    },
    async (request) => getApp(ctx, principalOf(request), request.params.appId),
  );
  app.delete(
    '/profile/apps/:appId',
    {
      schema: {
        operationId: 'deleteProfileApp',
        tags,
        summary: "Revoke an app's access: its tokens stop working at once",
        params: AppParams,
        response: { 200: Empty },
      },
      config: { access: write },
    },
    async (request) => {
      await revokeApp(ctx, principalOf(request), request.params.appId);
      return {};
    },
  );
};
