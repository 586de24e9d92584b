import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { GrantsSchema, UpdateGrantsBody } from './grants.schema.ts';
import { getUserGrants, updateUserGrants } from './grants.service.ts';
import { PasswordBody } from './password.ts';
import { actorOf } from './principal.ts';
import { access, principalOf } from './route-access.ts';
import { CreateUserBody, UpdateUserBody, UserParams, UserSchema } from './user.schema.ts';
import { createUser, deleteUser, getUser, getUsers, setAccountUserPassword, updateUser } from './user.service.ts';

const tags = ['Account'];
const read = access('account:read_only', 'unrestricted');
const write = access('account:read_write', 'unrestricted');

export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/account/users',
    {
      schema: {
        operationId: 'getUsers',
        tags,
        summary: 'List the users of your account',
        querystring: PageQuery,
        response: { 200: Paginated(UserSchema) },
      },
      config: { access: read },
    },
    async (request) => getUsers(ctx, principalOf(request).accountId, pageRequest(request)),
  );
  app.post(
    '/account/users',
    {
      schema: { operationId: 'createUser', tags, summary: 'Add a user', body: CreateUserBody, response: { 200: UserSchema } },
      config: { access: write },
    },
    async (request) => createUser(ctx, actorOf(principalOf(request)), request.body),
  );
  app.get(
    '/account/users/:username',
    {
      schema: { operationId: 'getUser', tags, summary: 'View a user', params: UserParams, response: { 200: UserSchema } },
      config: { access: read },
    },
    async (request) => getUser(ctx, principalOf(request).accountId, request.params.username),
  );
  app.put(
    '/account/users/:username',
    {
      schema: {
        operationId: 'updateUser',
        tags,
        summary: 'Update a user',
        params: UserParams,
        body: UpdateUserBody,
        response: { 200: UserSchema },
      },
      config: { access: write },
    },
    async (request) => updateUser(ctx, actorOf(principalOf(request)), request.params.username, request.body),
  );
  app.delete(
    '/account/users/:username',
    {
      schema: { operationId: 'deleteUser', tags, summary: 'Delete a user', params: UserParams, response: { 200: Empty } },
      config: { access: write },
    },
    async (request) => {
      await deleteUser(ctx, actorOf(principalOf(request)), request.params.username);
      return {};
    },
  );
  // An extension: the reference has no way to set a user's password (its sign-in is elsewhere).
  app.post(
    '/account/users/:username/password',
    {
      schema: {
        operationId: 'setAccountUserPassword',
        tags,
        summary: "Set or replace a user's password for signing in (only its scrypt hash is kept)",
        params: UserParams,
        body: PasswordBody,
        response: { 200: Empty },
      },
      config: { access: write },
    },
    async (request) => {
      await setAccountUserPassword(ctx, actorOf(principalOf(request)), request.params.username, request.body.password);
      return {};
    },
  );
  app.get(
    '/account/users/:username/grants',
    {
      schema: {
        operationId: 'getUserGrants',
        tags,
        summary: "View a restricted user's grants",
        params: UserParams,
        response: { 200: GrantsSchema, 204: Type.Null({ description: 'The user is unrestricted and has no grants' }) },
      },
      config: { access: read },
    },
    async (request, reply) => {
      const grants = await getUserGrants(ctx, principalOf(request).accountId, request.params.username);
      return grants ?? reply.code(204).send(null);
    },
  );
  app.put(
    '/account/users/:username/grants',
    {
      schema: {
        operationId: 'updateUserGrants',
        tags,
        summary: "Change a restricted user's grants",
        params: UserParams,
        body: UpdateGrantsBody,
        response: { 200: GrantsSchema },
      },
      config: { access: write },
    },
    async (request) => updateUserGrants(ctx, principalOf(request).accountId, request.params.username, request.body),
  );
};
