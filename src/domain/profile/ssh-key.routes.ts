import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { access, principalOf } from '../account/route-access.ts';
import { CreateSshKeyBody, SshKeyParams, SshKeySchema, UpdateSshKeyBody } from './ssh-key.schema.ts';
import { addSshKey, getSshKey, getSshKeys, removeSshKey, updateSshKey } from './ssh-key.service.ts';

const tags = ['Profile'];
// The reference marks the list read_only: an entity-level grant, and every key listed is the caller's own,
// so a restricted user needs no route-level grant here.
const read = access('account:read_only');
const write = access('account:read_write');

export const sshKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/profile/sshkeys',
    {
      schema: {
        operationId: 'getSSHKeys',
        tags,
        summary: 'List your SSH keys',
        querystring: PageQuery,
        response: { 200: Paginated(SshKeySchema) },
      },
      config: { access: read },
    },
    async (request) => getSshKeys(ctx, principalOf(request), pageRequest(request)),
  );
  app.post(
    '/profile/sshkeys',
    {
      schema: {
        operationId: 'addSSHKey',
        tags,
        summary: 'Add an SSH key to your profile',
        body: CreateSshKeyBody,
        response: { 200: SshKeySchema },
      },
      config: { access: write },
    },
    async (request) => addSshKey(ctx, principalOf(request), request.body),
  );
  app.get(
    '/profile/sshkeys/:sshKeyId',
    {
      schema: {
        operationId: 'getSSHKey',
        tags,
        summary: 'View an SSH key',
        params: SshKeyParams,
        response: { 200: SshKeySchema },
      },
      config: { access: read },
    },
    async (request) => getSshKey(ctx, principalOf(request), request.params.sshKeyId),
  );
  app.put(
    '/profile/sshkeys/:sshKeyId',
    {
      schema: {
        operationId: 'updateSSHKey',
        tags,
        summary: "Change an SSH key's label",
        params: SshKeyParams,
        body: UpdateSshKeyBody,
        response: { 200: SshKeySchema },
      },
      config: { access: write },
    },
    async (request) => updateSshKey(ctx, principalOf(request), request.params.sshKeyId, request.body),
  );
  app.delete(
    '/profile/sshkeys/:sshKeyId',
    {
      schema: {
        operationId: 'deleteSSHKey',
        tags,
        summary: 'Remove an SSH key from your profile',
        params: SshKeyParams,
        response: { 200: Empty },
      },
      config: { access: write },
    },
    async (request) => {
      await removeSshKey(ctx, principalOf(request), request.params.sshKeyId);
      return {};
    },
  );
};
