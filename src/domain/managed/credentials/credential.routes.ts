import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../../http/schemas.ts';
import { access, principalOf } from '../../account/route-access.ts';
import {
  CreateCredentialBody,
  CredentialParams,
  CredentialSchema,
  ManagedSshKeySchema,
  UpdateCredentialBody,
  UpdateCredentialSecretsBody,
} from './credential.schema.ts';
import {
  createCredential,
  getCredential,
  getCredentials,
  removeCredential,
  updateCredential,
  updateCredentialSecrets,
} from './credential.service.ts';
import { getManagedSshKey } from './managed-ssh-key.service.ts';

export const tags = ['Managed'];
// The reference's scopes table: lists and the SSH key read with read_only; a credential's view and every write need read_write.
const readManaged = access('account:read_only', 'unrestricted');
const writeManaged = access('account:read_write', 'unrestricted');

export const credentialRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/managed/credentials',
    {
      schema: {
        operationId: 'getManagedCredentials',
        tags,
        summary: 'List managed credentials',
        querystring: PageQuery,
        response: { 200: Paginated(CredentialSchema) },
      },
      config: { access: readManaged },
    },
    async (request) => getCredentials(ctx, principalOf(request).accountId, pageRequest(request)),
  );
  app.post(
    '/managed/credentials',
    {
      schema: {
        operationId: 'createManagedCredential',
        tags,
        summary: 'Store a managed credential (username and password are kept encrypted and never shown)',
        body: CreateCredentialBody,
        response: { 200: CredentialSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => createCredential(ctx, principalOf(request).accountId, request.body),
  );
  app.get(
    '/managed/credentials/sshkey',
    {
      schema: {
        operationId: 'viewManagedSSHKey',
        tags,
        summary: "The account's managed SSH public key",
        response: { 200: ManagedSshKeySchema },
      },
      config: { access: readManaged },
    },
    async (request) => getManagedSshKey(ctx, principalOf(request).accountId),
  );
  app.get(
    '/managed/credentials/:credentialId',
    {
      schema: {
        operationId: 'getManagedCredential',
        tags,
        summary: 'View a managed credential',
        params: CredentialParams,
        response: { 200: CredentialSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => getCredential(ctx, principalOf(request).accountId, request.params.credentialId),
  );
  app.put(
    '/managed/credentials/:credentialId',
    {
      schema: {
        operationId: 'updateManagedCredential',
        tags,
        summary: "Change a managed credential's label",
        params: CredentialParams,
        body: UpdateCredentialBody,
        response: { 200: CredentialSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => updateCredential(ctx, principalOf(request).accountId, request.params.credentialId, request.body),
  );
  app.post(
    '/managed/credentials/:credentialId/update',
    {
      schema: {
        operationId: 'updateManagedCredentialUsernamePassword',
        tags,
        summary: "Change a managed credential's password, and its username when given",
        params: CredentialParams,
        body: UpdateCredentialSecretsBody,
        response: { 200: Empty },
      },
      config: { access: writeManaged },
    },
    async (request) => {
      await updateCredentialSecrets(ctx, principalOf(request).accountId, request.params.credentialId, request.body);
      return {};
    },
  );
  // DELETE is the service description's, revoke the reference's: the same deletion.
  app.delete(
    '/managed/credentials/:credentialId',
    {
      schema: {
        operationId: 'deleteManagedCredentialById',
        tags,
        summary: 'Delete a managed credential',
        params: CredentialParams,
        response: { 200: Empty },
      },
      config: { access: writeManaged },
    },
    async (request) => {
      await removeCredential(ctx, principalOf(request).accountId, request.params.credentialId);
      return {};
    },
  );
  app.post(
    '/managed/credentials/:credentialId/revoke',
    {
      schema: {
        operationId: 'deleteManagedCredential',
        tags,
        summary: 'Delete a managed credential (the same as DELETE)',
        params: CredentialParams,
        response: { 200: Empty },
      },
      config: { access: writeManaged },
    },
    async (request) => {
      await removeCredential(ctx, principalOf(request).accountId, request.params.credentialId);
      return {};
    },
  );
};
