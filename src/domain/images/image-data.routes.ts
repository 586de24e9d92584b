import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { IMAGE_DATA_PATH, receiveImageData } from './image-upload.service.ts';

/** How much of a refused body is read and thrown away so the client sees the answer, at most. */
const LINGER_BYTES = 32 * 1024 * 1024;
const LINGER_MS = 10_000;

/**
 * After a refusal mid-body, reads and discards the rest for a while: a client still sending gets
 * the answer instead of a reset connection. Past the bounds the connection is cut.
 */
function linger(raw: IncomingMessage): void {
  if (raw.readableEnded || raw.destroyed) return;
  let discarded = 0;
  // Injected requests (tests) have a stand-in socket that cannot be destroyed.
  const cut = () => (raw.socket instanceof Socket ? raw.socket.destroy() : undefined);
  const timer = setTimeout(cut, LINGER_MS).unref();
  raw.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) cut();
  });
  raw.once('end', () => clearTimeout(timer));
  raw.once('close', () => clearTimeout(timer));
  raw.resume();
}

/**
 * The upload URL that POST /v4/images/upload hands out: a PUT of the raw gzip data, authorized by
 * the token in the path alone. Outside /v4 and the API document, like an object store's signed URL.
 */
export const imageDataRoutes: FastifyPluginAsync = async (app) => {
  const ctx = app.ctx;
  // Bodies here are streams handed to the service as they arrive, never buffered; any media type
  // reaches the service, which answers 415 in the envelope for all but application/octet-stream.
  app.removeAllContentTypeParsers();
  const handOver = (_request: unknown, payload: Readable, done: (err: null, body: Readable) => void) => done(null, payload);
  app.addContentTypeParser('application/octet-stream', handOver);
  app.addContentTypeParser('*', handOver);

  app.put<{ Params: { token: string } }>(
    `${IMAGE_DATA_PATH}/:token`,
    {
      schema: { hide: true },
      // The service enforces the configured cap while streaming; this only keeps Fastify out of the way.
      bodyLimit: Number.MAX_SAFE_INTEGER,
    },
    async (request) => {
      const length = request.headers['content-length'];
      try {
        await receiveImageData(ctx, request.params.token, {
          contentType: request.headers['content-type'],
          contentLength: length === undefined ? undefined : Number(length),
          body: (request.body as Readable | undefined) ?? request.raw,
        });
      } catch (err) {
        linger(request.raw);
        throw err;
      }
      return {};
    },
  );
};
