import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { access, principalOf } from '../account/route-access.ts';
import { CreateTokenBody, TokenParams, TokenSchema, UpdateTokenBody } from './token.schema.ts';
import { createOwnToken, deleteToken, getToken, getTokens, updateToken } from './token.service.ts';

const tags = ['Profile'];
const read = access('account:read_only');
const write = access('account:read_write');

export const tokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/profile/tokens',
    {
      schema: {
        operationId: 'getPersonalAccessTokens',
        tags,
        summary: 'List your personal access tokens',
        querystring: PageQuery,
        response: { 200: Paginated(TokenSchema) },
      },
      config: { access: read },
    },
    async (request) => getTokens(ctx, principalOf(request), pageRequest(request)),
  );
  app.post(
    '/profile/tokens',
    {
      schema: {
        operationId: 'createPersonalAccessToken',
        tags,
        summary: 'Create a personal access token',
        body: CreateTokenBody,
        response: { 200: TokenSchema },
      },
      config: { access: write },
    },
    async (request) => createOwnToken(ctx, principalOf(request), request.body),
  );
  app.get(
    '/profile/tokens/:tokenId',
    {
      schema: {
        operationId: 'getPersonalAccessToken',
        tags,
        summary: 'View a personal access token',
        params: TokenParams,
        response: { 200: TokenSchema },
      },
      config: { access: read },
    },
    async (request) => getToken(ctx, principalOf(request), request.params.tokenId),
  );
  app.put(
    '/profile/tokens/:tokenId',
    {
      schema: {
        operationId: 'updatePersonalAccessToken',
        tags,
        summary: "Change a personal access token's label",
        params: TokenParams,
        body: UpdateTokenBody,
        response: { 200: TokenSchema },
      },
      config: { access: write },
    },
    async (request) => updateToken(ctx, principalOf(request), request.params.tokenId, request.body),
  );
  app.delete(
    '/profile/tokens/:tokenId',
    {
      schema: {
        operationId: 'deletePersonalAccessToken',
        tags,
        summary: 'Revoke a personal access token',
        params: TokenParams,
        response: { 200: Empty },
      },
      config: { access: write },
    },
    async (request) => {
      await deleteToken(ctx, principalOf(request), request.params.tokenId);
      return {};
    },
  );
};
