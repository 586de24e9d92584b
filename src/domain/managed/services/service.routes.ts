import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../../http/schemas.ts';
import { principalOf } from '../../account/route-access.ts';
import { readManaged, managedTags as tags, writeManaged } from '../managed-access.ts';
import { CreateServiceBody, ServiceParams, ServiceSchema, UpdateServiceBody } from './service.schema.ts';
import {
  createService,
  deleteService,
  disableService,
  enableService,
  getService,
  getServices,
  updateService,
} from './service.service.ts';

export const serviceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/managed/services',
    {
      schema: {
        operationId: 'getManagedServices',
        tags,
        summary: 'List managed services',
        querystring: PageQuery,
        response: { 200: Paginated(ServiceSchema) },
      },
      config: { access: readManaged },
    },
    async (request) => getServices(ctx, principalOf(request).accountId, pageRequest(request)),
  );
  app.post(
    '/managed/services',
    {
      schema: {
        operationId: 'createManagedService',
        tags,
        summary: 'Watch a service',
        body: CreateServiceBody,
        response: { 200: ServiceSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => createService(ctx, principalOf(request), request.body),
  );
  app.get(
    '/managed/services/:serviceId',
    {
      schema: {
        operationId: 'getManagedService',
        tags,
        summary: 'View a managed service',
        params: ServiceParams,
        response: { 200: ServiceSchema },
      },
      config: { access: readManaged },
    },
    async (request) => getService(ctx, principalOf(request).accountId, request.params.serviceId),
  );
  app.put(
    '/managed/services/:serviceId',
    {
      schema: {
        operationId: 'updateManagedService',
        tags,
        summary: 'Update a managed service',
        params: ServiceParams,
        body: UpdateServiceBody,
        response: { 200: ServiceSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => updateService(ctx, principalOf(request).accountId, request.params.serviceId, request.body),
  );
  app.delete(
    '/managed/services/:serviceId',
    {
      schema: {
        operationId: 'deleteManagedService',
        tags,
        summary: 'Stop watching a service',
        params: ServiceParams,
        response: { 200: Empty },
      },
      config: { access: writeManaged },
    },
    async (request) => {
      await deleteService(ctx, principalOf(request), request.params.serviceId);
      return {};
    },
  );
  app.post(
    '/managed/services/:serviceId/disable',
    {
      schema: {
        operationId: 'disableManagedService',
        tags,
        summary: 'Stop probing a managed service',
        params: ServiceParams,
        response: { 200: ServiceSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => disableService(ctx, principalOf(request).accountId, request.params.serviceId),
  );
  app.post(
    '/managed/services/:serviceId/enable',
    {
      schema: {
        operationId: 'enableManagedService',
        tags,
        summary: 'Probe a managed service again',
        params: ServiceParams,
        response: { 200: ServiceSchema },
      },
      config: { access: writeManaged },
    },
    async (request) => enableService(ctx, principalOf(request).accountId, request.params.serviceId),
  );
};
