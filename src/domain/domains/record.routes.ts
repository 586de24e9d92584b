import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { principalOf } from '../account/route-access.ts';
import { readDomains, tags, writeDomains } from './domain.routes.ts';
import { DomainParams } from './domain.schema.ts';
import { CreateRecordBody, DomainRecordSchema, RecordParams, UpdateRecordBody } from './record.schema.ts';
import { createRecord, deleteRecord, getRecord, getRecords, updateRecord } from './record.service.ts';

export const recordRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/domains/:domainId/records',
    {
      schema: {
        operationId: 'getDomainRecords',
        tags,
        summary: "List a domain's records",
        params: DomainParams,
        querystring: PageQuery,
        response: { 200: Paginated(DomainRecordSchema) },
      },
      config: { access: readDomains },
    },
    async (request) => getRecords(ctx, scopeOf(principalOf(request)), request.params.domainId, pageRequest(request)),
  );
  app.post(
    '/domains/:domainId/records',
    {
      schema: {
        operationId: 'createDomainRecord',
        tags,
        summary: 'Add a record to a domain',
        params: DomainParams,
        body: CreateRecordBody,
        response: { 200: DomainRecordSchema },
      },
      config: { access: writeDomains },
    },
    async (request) => createRecord(ctx, principalOf(request), request.params.domainId, request.body, request.ip),
  );
  app.get(
    '/domains/:domainId/records/:recordId',
    {
      schema: {
        operationId: 'getDomainRecord',
        tags,
        summary: 'View a domain record',
        params: RecordParams,
        response: { 200: DomainRecordSchema },
      },
      config: { access: readDomains },
    },
    async (request) => getRecord(ctx, scopeOf(principalOf(request)), request.params.domainId, request.params.recordId),
  );
  app.put(
    '/domains/:domainId/records/:recordId',
    {
      schema: {
        operationId: 'updateDomainRecord',
        tags,
        summary: 'Update a domain record',
        params: RecordParams,
        body: UpdateRecordBody,
        response: { 200: DomainRecordSchema },
      },
      config: { access: writeDomains },
    },
    async (request) =>
      updateRecord(ctx, principalOf(request), request.params.domainId, request.params.recordId, request.body, request.ip),
  );
  app.delete(
    '/domains/:domainId/records/:recordId',
    {
      schema: {
        operationId: 'deleteDomainRecord',
        tags,
        summary: 'Delete a domain record',
        params: RecordParams,
        response: { 200: Empty },
      },
      config: { access: writeDomains },
    },
    async (request) => {
      await deleteRecord(ctx, principalOf(request), request.params.domainId, request.params.recordId);
      return {};
    },
  );
};
