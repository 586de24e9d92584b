import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../../http/list.ts';
import { PageQuery, Paginated } from '../../../http/schemas.ts';
import { principalOf } from '../../account/route-access.ts';
import { readManaged, managedTags as tags } from '../managed-access.ts';
import { IssueParams, IssueSchema } from './issue.schema.ts';
import { getIssue, getOpenIssues } from './issue.service.ts';

export const issueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/managed/issues',
    {
      schema: {
        operationId: 'getManagedIssues',
        tags,
        summary: 'List open managed issues',
        querystring: PageQuery,
        response: { 200: Paginated(IssueSchema) },
      },
      config: { access: readManaged },
    },
    async (request) => getOpenIssues(ctx, principalOf(request).accountId, pageRequest(request)),
  );
  app.get(
    '/managed/issues/:issueId',
    {
      schema: {
        operationId: 'getManagedIssue',
        tags,
        summary: 'View a managed issue',
        params: IssueParams,
        response: { 200: IssueSchema },
      },
      config: { access: readManaged },
    },
    async (request) => getIssue(ctx, principalOf(request).accountId, request.params.issueId),
  );
};
