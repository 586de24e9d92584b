import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  CredentialParams,
  RevealedCredentialSchema,
  RevealedSshKeySchema,
} from '../domain/managed/credentials/credential.schema.ts';
import { revealCredential } from '../domain/managed/credentials/credential-reveal.service.ts';
import { revealManagedSshKey } from '../domain/managed/credentials/managed-ssh-key.service.ts';
import { IntegerId } from '../http/schemas.ts';

/** The operator acting as the managed service's staff: the only way secrets kept for it are read back. */
export const managedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.post(
    '/managed/credentials/:credentialId/reveal',
    {
      schema: {
        operationId: 'revealManagedCredential',
        summary: "A managed credential's username and password, decrypted; sets its last_decrypted",
        params: CredentialParams,
        response: { 200: RevealedCredentialSchema },
      },
    },
    async (request) => revealCredential(ctx, request.params.credentialId),
  );
  app.post(
    '/managed/ssh-keys/:accountId/reveal',
    {
      schema: {
        operationId: 'revealManagedSshKey',
        summary: "An account's managed SSH key pair with the private key decrypted (made now if the account has none yet)",
        params: Type.Object({ accountId: IntegerId }),
        response: { 200: RevealedSshKeySchema },
      },
    },
    async (request) => revealManagedSshKey(ctx, request.params.accountId),
  );
};
