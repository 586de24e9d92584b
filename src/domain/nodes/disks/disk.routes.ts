import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../../http/list.ts';
import { Empty, PageQuery, Paginated } from '../../../http/schemas.ts';
import { scopeOf } from '../../account/principal.ts';
import { principalOf } from '../../account/route-access.ts';
import { readNodes, tags, writeNodes } from '../node.routes.ts';
import { NodeParams } from '../node.schema.ts';
import { CreateDiskBody, DiskParams, DiskPasswordBody, DiskSchema, ResizeDiskBody, UpdateDiskBody } from './disk.schema.ts';
import { createDisk, deleteDisk, getDisk, getDisks, updateDisk } from './disk.service.ts';
import { cloneDisk, resetDiskPassword, resizeDisk } from './disk-actions.service.ts';

export const diskRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/node/instances/:nodeId/disks',
    {
      schema: {
        operationId: 'getNodeDisks',
        tags,
        summary: "List a node's disks",
        params: NodeParams,
        querystring: PageQuery,
        response: { 200: Paginated(DiskSchema) },
      },
      config: { access: readNodes },
    },
    async (request) => getDisks(ctx, scopeOf(principalOf(request)), request.params.nodeId, pageRequest(request)),
  );
  app.post(
    '/node/instances/:nodeId/disks',
    {
      schema: {
        operationId: 'addNodeDisk',
        tags,
        summary: 'Add a disk',
        params: NodeParams,
        body: CreateDiskBody,
        response: { 200: DiskSchema },
      },
      config: { access: writeNodes },
    },
    async (request) => createDisk(ctx, principalOf(request), request.params.nodeId, request.body),
  );
  app.get(
    '/node/instances/:nodeId/disks/:diskId',
    {
      schema: { operationId: 'getNodeDisk', tags, summary: 'View a disk', params: DiskParams, response: { 200: DiskSchema } },
      config: { access: readNodes },
    },
    async (request) => getDisk(ctx, scopeOf(principalOf(request)), request.params.nodeId, request.params.diskId),
  );
  app.put(
    '/node/instances/:nodeId/disks/:diskId',
    {
      schema: {
        operationId: 'updateDisk',
        tags,
        summary: "Change a disk's label",
        params: DiskParams,
        body: UpdateDiskBody,
        response: { 200: DiskSchema },
      },
      config: { access: writeNodes },
    },
    async (request) => updateDisk(ctx, principalOf(request), request.params.nodeId, request.params.diskId, request.body),
  );
  app.delete(
    '/node/instances/:nodeId/disks/:diskId',
    {
      schema: { operationId: 'deleteDisk', tags, summary: 'Delete a disk', params: DiskParams, response: { 200: Empty } },
      config: { access: writeNodes },
    },
    async (request) => {
      await deleteDisk(ctx, principalOf(request), request.params.nodeId, request.params.diskId);
      return {};
    },
  );
  app.post(
    '/node/instances/:nodeId/disks/:diskId/clone',
    {
      schema: { operationId: 'cloneNodeDisk', tags, summary: 'Copy a disk', params: DiskParams, response: { 200: DiskSchema } },
      config: { access: writeNodes },
    },
    async (request) => cloneDisk(ctx, principalOf(request), request.params.nodeId, request.params.diskId),
  );
  app.post(
    '/node/instances/:nodeId/disks/:diskId/password',
    {
      schema: {
        operationId: 'resetDiskPassword',
        tags,
        summary: "Reset a disk's root password",
        params: DiskParams,
        body: DiskPasswordBody,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      await resetDiskPassword(ctx, principalOf(request), request.params.nodeId, request.params.diskId, request.body.password);
      return {};
    },
  );
  app.post(
    '/node/instances/:nodeId/disks/:diskId/resize',
    {
      schema: {
        operationId: 'resizeDisk',
        tags,
        summary: 'Resize a disk',
        params: DiskParams,
        body: ResizeDiskBody,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      await resizeDisk(ctx, principalOf(request), request.params.nodeId, request.params.diskId, request.body.size);
      return {};
    },
  );
};
