import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../http/schemas.ts';
import { scopeOf } from '../account/principal.ts';
import { access, principalOf } from '../account/route-access.ts';
import {
  CloneDomainBody,
  CreateDomainBody,
  DomainParams,
  DomainSchema,
  DomainTextParams,
  ImportDomainBody,
  UpdateDomainBody,
  ZoneFileSchema,
} from './domain.schema.ts';
import { createDomain, deleteDomain, getDomain, getDomains, getZoneFile, updateDomain } from './domain.service.ts';
import { cloneDomain } from './domain-clone.service.ts';
import { importFromNameserver } from './domain-import.service.ts';

export const tags = ['Domains'];
export const readDomains = access('domains:read_only');
export const writeDomains = access('domains:read_write');

export const domainRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/domains',
    {
      schema: {
        operationId: 'getDomains',
        tags,
        summary: 'List domains',
        querystring: PageQuery,
        response: { 200: Paginated(DomainSchema) },
      },
      config: { access: readDomains },
    },
    async (request) => getDomains(ctx, scopeOf(principalOf(request)), pageRequest(request)),
  );
  app.post(
    '/domains',
    {
      schema: {
        operationId: 'createDomain',
        tags,
        summary: 'Add a domain',
        body: CreateDomainBody,
        response: { 200: DomainSchema },
      },
      config: { access: access('domains:read_write', 'add_domains') },
    },
    async (request) => createDomain(ctx, principalOf(request), request.body),
  );
  app.post(
    '/domains/import',
    {
      schema: {
        operationId: 'importDomain',
        tags,
        summary: "Make a master domain of a zone transferred (AXFR) from the domain's current nameserver",
        body: ImportDomainBody,
        response: { 200: DomainSchema },
      },
      config: { access: access('domains:read_write', 'add_domains') },
    },
    async (request) => importFromNameserver(ctx, principalOf(request), request.body),
  );
  app.get(
    '/domains/:domainId',
    {
      schema: { operationId: 'getDomain', tags, summary: 'View a domain', params: DomainParams, response: { 200: DomainSchema } },
      config: { access: readDomains },
    },
    async (request) => getDomain(ctx, scopeOf(principalOf(request)), request.params.domainId),
  );
  app.put(
    '/domains/:domainId',
    {
      schema: {
        operationId: 'updateDomain',
        tags,
        summary: 'Update a domain',
        params: DomainParams,
        body: UpdateDomainBody,
        response: { 200: DomainSchema },
      },
      config: { access: writeDomains },
    },
    async (request) => updateDomain(ctx, principalOf(request), request.params.domainId, request.body),
  );
  app.delete(
    '/domains/:domainId',
    {
      schema: {
        operationId: 'deleteDomain',
        tags,
        summary: 'Delete a domain and its records',
        params: DomainParams,
        response: { 200: Empty },
      },
      config: { access: writeDomains },
    },
    async (request) => {
      await deleteDomain(ctx, principalOf(request), request.params.domainId);
      return {};
    },
  );
  app.post(
    '/domains/:domainId/clone',
    {
      schema: {
        operationId: 'cloneDomain',
        tags,
        summary: 'Copy a domain and its records under a new name',
        params: DomainTextParams,
        body: CloneDomainBody,
        response: { 200: DomainSchema },
      },
      config: { access: writeDomains },
    },
    async (request) => cloneDomain(ctx, principalOf(request), request.params.domainId, request.body),
  );
  app.get(
    '/domains/:domainId/zone-file',
    {
      schema: {
        operationId: 'getDomainZone',
        tags,
        summary: "View the domain's last rendered zone file",
        params: DomainTextParams,
        response: { 200: ZoneFileSchema },
      },
      config: { access: readDomains },
    },
    async (request) => getZoneFile(ctx, scopeOf(principalOf(request)), request.params.domainId),
  );
};
