import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PasswordBody } from '../domain/account/password.ts';
import { UserParams } from '../domain/account/user.schema.ts';
import { setUserPassword } from '../domain/account/user.service.ts';

/** What `cumulo user set-password` does, for an operator who reaches the server and not its database. */
export const userPasswordRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.put(
    '/users/:username/password',
    {
      schema: {
        operationId: 'setUserPassword',
        summary: "Set or replace a user's password (only its scrypt hash is kept)",
        params: UserParams,
        body: PasswordBody,
        response: { 200: Type.Object({ username: Type.String() }) },
      },
    },
    async (request) => {
      await setUserPassword(ctx, request.params.username, request.body.password);
      return { username: request.params.username };
    },
  );
};
