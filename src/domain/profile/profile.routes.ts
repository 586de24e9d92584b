import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { publicBaseUrl } from '../../http/public-url.ts';
import { GrantsSchema } from '../account/grants.schema.ts';
import { getProfileGrants } from '../account/grants.service.ts';
import { access, principalOf } from '../account/route-access.ts';
import { ProfileSchema, UpdateProfileBody } from './profile.schema.ts';
import { getProfile, updateProfile } from './profile.service.ts';

const tags = ['Profile'];

export const profileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/profile',
    {
      schema: { operationId: 'getProfile', tags, summary: 'View your profile', response: { 200: ProfileSchema } },
      config: { access: access([]) },
    },
    async (request) => getProfile(ctx, principalOf(request), publicBaseUrl(request, ctx.config.publicUrl)),
  );
  app.put(
    '/profile',
    {
      schema: {
        operationId: 'updateProfile',
        tags,
        summary: 'Update your profile',
        body: UpdateProfileBody,
        response: { 200: ProfileSchema },
      },
      config: { access: access('account:read_write') },
    },
    async (request) => updateProfile(ctx, principalOf(request), request.body, publicBaseUrl(request, ctx.config.publicUrl)),
  );
  app.get(
    '/profile/grants',
    {
      schema: {
        operationId: 'getProfileGrants',
        tags,
        summary: 'View what your user has been granted',
        response: { 200: GrantsSchema, 204: Type.Null({ description: 'Your user is unrestricted and needs no grants' }) },
      },
      config: { access: access([]) },
    },
    async (request, reply) => (await getProfileGrants(ctx, principalOf(request))) ?? reply.code(204).send(null),
  );
};
