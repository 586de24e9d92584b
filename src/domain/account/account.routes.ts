import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AccountSchema, UpdateAccountBody } from './account.schema.ts';
import { getAccount, updateAccount } from './account.service.ts';
import { actorOf } from './principal.ts';
import { access, principalOf } from './route-access.ts';

const tags = ['Account'];

export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/account',
    {
      schema: { operationId: 'getAccount', tags, summary: 'View your account', response: { 200: AccountSchema } },
      config: { access: access('account:read_only', 'account_access:read_only') },
    },
    async (request) => getAccount(ctx, principalOf(request).accountId),
  );
  app.put(
    '/account',
    {
      schema: {
        operationId: 'updateAccount',
        tags,
        summary: 'Update your account',
        body: UpdateAccountBody,
        response: { 200: AccountSchema },
      },
      config: { access: access('account:read_write', 'account_access:read_write') },
    },
    async (request) => updateAccount(ctx, actorOf(principalOf(request)), request.body),
  );
};
