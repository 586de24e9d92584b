import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { access, principalOf } from '../../http/access.ts';
import { ProfileSchema } from './profile.schema.ts';
import { getProfile } from './profile.service.ts';

const tags = ['Profile'];

export const profileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/profile',
    {
      schema: { operationId: 'getProfile', tags, summary: 'View your profile', response: { 200: ProfileSchema } },
      config: { access: access([]) },
    },
    async (request) => getProfile(ctx, principalOf(request)),
  );
};
