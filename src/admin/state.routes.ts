import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { InfoSchema, ResetSchema, RestoreSchema } from './admin.schema.ts';
import { getInfo } from './info.service.ts';
import { resetAll } from './reset.service.ts';
import { restoreSnapshot } from './restore.service.ts';
import { streamWriter, writeSnapshot } from './snapshot.service.ts';

const NDJSON = 'application/x-ndjson';

/** Info, reset, snapshot and restore: all state at once. */
export const stateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  app.get(
    '/info',
    {
      schema: {
        operationId: 'getInfo',
        summary: 'Version, database, uptime, counts, job queue, faults, transitions',
        response: { 200: InfoSchema },
      },
    },
    async () => getInfo(ctx, process.uptime()),
  );

  app.post(
    '/reset',
    { schema: { operationId: 'reset', summary: 'All state back to a fresh install', response: { 200: ResetSchema } } },
    async () => resetAll(ctx),
  );

  app.get(
    '/snapshot',
    {
      schema: {
        operationId: 'getSnapshot',
        summary: 'All state as one NDJSON document (image data referenced by blob key)',
        produces: [NDJSON],
      },
    },
    async (_request, reply) => {
      // Assembled in a file first: the read transaction stays as short as the database makes it,
      // however slowly the client reads.
      const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'cumulo-snapshot-'));
      const file = path.join(dir, 'snapshot.ndjson');
      const out = fs.createWriteStream(file);
      const removeDir = () => fs.rm(dir, { recursive: true, force: true }, () => {});
      try {
        await writeSnapshot(ctx, streamWriter(out));
      } catch (err) {
        out.destroy();
        removeDir();
        throw err;
      }
      await new Promise<void>((r) => out.end(() => r()));
      const stream = fs.createReadStream(file);
      stream.once('close', removeDir);
      return reply.type(NDJSON).send(stream);
    },
  );

  await app.register(async (raw) => {
    // The document streams in line by line, whatever media type the client names.
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    raw.post(
      '/restore',
      {
        schema: {
          operationId: 'restore',
          summary: 'Replace all state with a snapshot of the same schema version',
          consumes: [NDJSON],
          response: { 200: RestoreSchema },
        },
        bodyLimit: Number.MAX_SAFE_INTEGER,
      },
      async (request) => {
        const body = (request.body as Readable | undefined) ?? request.raw;
        return restoreSnapshot(ctx, readline.createInterface({ input: body, crlfDelay: Number.POSITIVE_INFINITY }));
      },
    );
  });
};
