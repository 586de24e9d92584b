import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { actorOf } from '../account/principal.ts';
import { access, principalOf } from '../account/route-access.ts';
import { CreateOAuthClientBody, OAuthClientParams, OAuthClientSchema, UpdateOAuthClientBody } from './oauth-client.schema.ts';
import { createClient, deleteClient, getClient, getClients, resetClientSecret, updateClient } from './oauth-client.service.ts';

const tags = ['Account'];
// An account's clients are the account's business: its scopes, and a restricted user's account access.
const read = access('account:read_only', 'account_access:read_only');
const write = access('account:read_write', 'account_access:read_write');

export const oauthClientRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/account/oauth-clients',
    {
      schema: {
        operationId: 'getClients',
        tags,
        summary: "List the account's OAuth clients",
        querystring: PageQuery,
        response: { 200: Paginated(OAuthClientSchema) },
      },
      config: { access: read },
    },
    async (request) => getClients(ctx, principalOf(request).accountId, pageRequest(request)),
  );
  app.post(
    '/account/oauth-clients',
    {
      schema: {
        operationId: 'createClient',
        tags,
        summary: 'Register an OAuth client',
        body: CreateOAuthClientBody,
        response: { 200: OAuthClientSchema },
      },
      config: { access: write },
    },
    async (request) => createClient(ctx, actorOf(principalOf(request)), request.body),
  );
  app.get(
    '/account/oauth-clients/:clientId',
    {
      schema: {
        operationId: 'getClient',
        tags,
        summary: 'View an OAuth client',
        params: OAuthClientParams,
        response: { 200: OAuthClientSchema },
      },
      config: { access: read },
    },
    async (request) => getClient(ctx, principalOf(request).accountId, request.params.clientId),
  );
  app.put(
    '/account/oauth-clients/:clientId',
    {
      schema: {
        operationId: 'updateClient',
        tags,
        summary: 'Update an OAuth client',
        params: OAuthClientParams,
        body: UpdateOAuthClientBody,
        response: { 200: OAuthClientSchema },
      },
      config: { access: write },
    },
    async (request) => updateClient(ctx, actorOf(principalOf(request)), request.params.clientId, request.body),
  );
  app.delete(
    '/account/oauth-clients/:clientId',
    {
      schema: {
        operationId: 'deleteClient',
        tags,
        summary: 'Delete an OAuth client',
        params: OAuthClientParams,
        response: { 200: Empty },
      },
      config: { access: write },
    },
    async (request) => {
      await deleteClient(ctx, actorOf(principalOf(request)), request.params.clientId);
      return {};
    },
  );
  // The reference's path, and the spelling an official SDK calls (undocumented, the same operation).
  for (const [path, hide] of [
    ['/account/oauth-clients/:clientId/reset-secret', false],
    ['/account/oauth-clients/:clientId/reset_secret', true],
  ] as const) {
    app.post(
      path,
      {
        schema: {
          operationId: 'resetClientSecret',
          tags,
          summary: "Reset an OAuth client's secret",
          params: OAuthClientParams,
          response: { 200: OAuthClientSchema },
          ...(hide ? { hide } : {}),
        },
        config: { access: write },
      },
      async (request) => resetClientSecret(ctx, actorOf(principalOf(request)), request.params.clientId),
    );
  }
};
