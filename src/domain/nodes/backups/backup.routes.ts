import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Empty } from '../../../http/schemas.ts';
import { scopeOf } from '../../account/principal.ts';
import { principalOf } from '../../account/route-access.ts';
import { readNodes, tags, writeNodes } from '../node.routes.ts';
import { NodeParams } from '../node.schema.ts';
import { BackupParams, BackupSchema, BackupsSchema, CreateSnapshotBody, RestoreBackupBody } from './backup.schema.ts';
import { cancelBackups, createSnapshot, enableBackups, getBackup, getBackups } from './backup.service.ts';
import { restoreBackup } from './backup-restore.service.ts';

export const backupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/node/instances/:nodeId/backups',
    {
      schema: {
        operationId: 'getBackups',
        tags,
        summary: "List a node's backups",
        params: NodeParams,
        response: { 200: BackupsSchema },
      },
      config: { access: readNodes },
    },
    async (request) => getBackups(ctx, scopeOf(principalOf(request)), request.params.nodeId),
  );
  app.post(
    '/node/instances/:nodeId/backups',
    {
      schema: {
        operationId: 'createSnapshot',
        tags,
        summary: 'Take a snapshot',
        params: NodeParams,
        body: CreateSnapshotBody,
        response: { 200: BackupSchema },
      },
      config: { access: writeNodes },
    },
    async (request) => createSnapshot(ctx, principalOf(request), request.params.nodeId, request.body.label),
  );
  app.post(
    '/node/instances/:nodeId/backups/cancel',
    {
      schema: {
        operationId: 'cancelBackups',
        tags,
        summary: 'Cancel the backup service',
        params: NodeParams,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      await cancelBackups(ctx, principalOf(request), request.params.nodeId);
      return {};
    },
  );
  app.post(
    '/node/instances/:nodeId/backups/enable',
    {
      schema: {
        operationId: 'enableBackups',
        tags,
        summary: 'Enable the backup service',
        params: NodeParams,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      await enableBackups(ctx, principalOf(request), request.params.nodeId);
      return {};
    },
  );
  app.get(
    '/node/instances/:nodeId/backups/:backupId',
    {
      schema: { operationId: 'getBackup', tags, summary: 'View a backup', params: BackupParams, response: { 200: BackupSchema } },
      config: { access: readNodes },
    },
    async (request) => getBackup(ctx, scopeOf(principalOf(request)), request.params.nodeId, request.params.backupId),
  );
  app.post(
    '/node/instances/:nodeId/backups/:backupId/restore',
    {
      schema: {
        operationId: 'restoreBackup',
        tags,
        summary: 'Restore a backup to a node',
        params: BackupParams,
        body: RestoreBackupBody,
        response: { 200: Empty },
      },
      config: { access: writeNodes },
    },
    async (request) => {
      const { nodeId, backupId } = request.params;
      await restoreBackup(ctx, principalOf(request), nodeId, backupId, request.body);
      return {};
    },
  );
};
