import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { access, principalOf } from '../account/route-access.ts';
import { CreateStackScriptBody, StackScriptParams, StackScriptSchema, UpdateStackScriptBody } from './stackscript.schema.ts';
import {
  createStackScript,
  deleteStackScript,
  getStackScript,
  getStackScripts,
  updateStackScript,
} from './stackscript.service.ts';

const tags = ['StackScripts'];
/** The reference lists public scripts to anonymous callers; a token adds the account's own. */
const list = access('stackscripts:read_only', undefined, true);
const read = access('stackscripts:read_only');
const write = access('stackscripts:read_write');

export const stackScriptRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/node/stackscripts',
    {
      schema: {
        operationId: 'getStackScripts',
        tags,
        summary: 'List StackScripts',
        querystring: PageQuery,
        response: { 200: Paginated(StackScriptSchema) },
      },
      config: { access: list },
    },
    async (request) => getStackScripts(ctx, request.principal ? scopeOf(request.principal) : null, pageRequest(request)),
  );
  app.post(
    '/node/stackscripts',
    {
      schema: {
        operationId: 'addStackScript',
        tags,
        summary: 'Create a StackScript',
        body: CreateStackScriptBody,
        response: { 200: StackScriptSchema },
      },
      config: { access: access('stackscripts:read_write', 'add_stackscripts') },
    },
    async (request) => createStackScript(ctx, principalOf(request), request.body),
  );
  app.get(
    '/node/stackscripts/:stackscriptId',
    {
      schema: {
        operationId: 'getStackScript',
        tags,
        summary: 'View a StackScript',
        params: StackScriptParams,
        response: { 200: StackScriptSchema },
      },
      config: { access: read },
    },
    async (request) => getStackScript(ctx, scopeOf(principalOf(request)), request.params.stackscriptId),
  );
  app.put(
    '/node/stackscripts/:stackscriptId',
    {
      schema: {
        operationId: 'updateStackScript',
        tags,
        summary: 'Update a StackScript',
        params: StackScriptParams,
        body: UpdateStackScriptBody,
        response: { 200: StackScriptSchema },
      },
      config: { access: write },
    },
    async (request) => updateStackScript(ctx, principalOf(request), request.params.stackscriptId, request.body),
  );
  app.delete(
    '/node/stackscripts/:stackscriptId',
    {
      schema: {
        operationId: 'deleteStackScript',
        tags,
        summary: 'Delete a private StackScript',
        params: StackScriptParams,
        response: { 200: Empty },
      },
      config: { access: write },
    },
    async (request) => {
      await deleteStackScript(ctx, principalOf(request), request.params.stackscriptId);
      return {};
    },
  );
};
