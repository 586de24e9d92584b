import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Empty } from '../../../http/schemas.ts';
import { principalOf } from '../../account/route-access.ts';
import { tags, writeNodes } from '../node.routes.ts';
import { NodeParams, NodeSchema } from '../node.schema.ts';
import { migrateNode } from './migrate.service.ts';
import {
  MigrateNodeBody,
  MutateNodeBody,
  NodePasswordBody,
  RebuildNodeBody,
  RescueNodeBody,
  ResizeNodeBody,
} from './node-change.schema.ts';
import { resetNodePassword } from './node-password.service.ts';
import { rebuildNode } from './rebuild.service.ts';
import { rescueNode } from './rescue.service.ts';
import { mutateNode, resizeNode } from './resize.service.ts';

/** Operations that change a node as a whole: resize, mutate, migrate, rebuild, rescue and its root password. */
export const nodeChangeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const config = { access: writeNodes };
  app.post(
    '/node/instances/:nodeId/resize',
    {
      schema: {
        operationId: 'resizeNodeInstance',
        tags,
        summary: 'Resize a node',
        params: NodeParams,
        body: ResizeNodeBody,
        response: { 200: Empty },
      },
      config,
    },
    async (request) => {
      const { type, allow_auto_disk_resize } = request.body;
      await resizeNode(ctx, principalOf(request), request.params.nodeId, type, allow_auto_disk_resize);
      return {};
    },
  );
  app.post(
    '/node/instances/:nodeId/mutate',
    {
      schema: {
        operationId: 'mutateNodeInstance',
        tags,
        summary: "Upgrade a node to its type's successor",
        params: NodeParams,
        body: MutateNodeBody,
        response: { 200: Empty },
      },
      config,
    },
    async (request) => {
      await mutateNode(ctx, principalOf(request), request.params.nodeId, request.body.allow_auto_disk_resize);
      return {};
    },
  );
  app.post(
    '/node/instances/:nodeId/migrate',
    {
      schema: {
        operationId: 'migrateNodeInstance',
        tags,
        summary: 'Migrate a node',
        params: NodeParams,
        body: MigrateNodeBody,
        response: { 200: Empty },
      },
      config,
    },
    async (request) => {
      await migrateNode(ctx, principalOf(request), request.params.nodeId, request.body);
      return {};
    },
  );
  app.post(
    '/node/instances/:nodeId/rebuild',
    {
      schema: {
        operationId: 'rebuildNodeInstance',
        tags,
        summary: 'Rebuild a node from an image',
        params: NodeParams,
        body: RebuildNodeBody,
        response: { 200: NodeSchema },
      },
      config,
    },
    async (request) => rebuildNode(ctx, principalOf(request), request.params.nodeId, request.body),
  );
  app.post(
    '/node/instances/:nodeId/rescue',
    {
      schema: {
        operationId: 'rescueNodeInstance',
        tags,
        summary: 'Boot a node into rescue mode',
        params: NodeParams,
        body: RescueNodeBody,
        response: { 200: Empty },
      },
      config,
    },
    async (request) => {
      await rescueNode(ctx, principalOf(request), request.params.nodeId, request.body);
      return {};
    },
  );
  app.post(
    '/node/instances/:nodeId/password',
    {
      schema: {
        operationId: 'resetNodePassword',
        tags,
        summary: "Reset a node's root password",
        params: NodeParams,
        body: NodePasswordBody,
        response: { 200: Empty },
      },
      config,
    },
    async (request) => {
      await resetNodePassword(ctx, principalOf(request), request.params.nodeId, request.body.root_pass);
      return {};
    },
  );
};
