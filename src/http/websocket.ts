import type { Duplex } from 'node:stream';
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { withoutWaiting } from './front-door.ts';
import { chosenSubprotocol, isWebSocketHandshake } from './websocket-protocols.ts';

/** How long the socket of a refused handshake waits for the client to close its side. */
const REFUSED_LINGER_MS = 5000;
/** Output waiting for a slow client past this pauses the stream it comes from. */
const SEND_HIGH_WATER_BYTES = 1024 * 1024;

/**
 * Lets the routes of the calling plugin take WebSockets (`wsHandler`). A handshake goes through the
 * hooks, the auth check included, and the route's preHandler before it is upgraded, so a refusal is
 * an ordinary HTTP answer in the envelope. Once per server: every upgrade request of the server
 * is routed through this registration. A message over `maxMessageBytes` closes the socket (1009).
 */
export async function registerWebSockets(app: FastifyInstance, options: { maxMessageBytes: number }): Promise<void> {
  await app.register(websocket, {
    options: { maxPayload: options.maxMessageBytes, handleProtocols: (protocols) => chosenSubprotocol(protocols) },
    // Instead of the plugin's close without a status, clients are told why (1001).
    preClose(done) {
      for (const client of this.websocketServer.clients) client.close(1001, 'The server is shutting down');
      this.websocketServer.close();
      done();
    },
  });
  // A handshake refused before the plugin's own hooks ran (by the auth check) would keep its socket:
  // nothing reads another request from it.
  app.addHook(
    'onResponse',
    withoutWaiting((request) => {
      if (!isWebSocketHandshake(request.headers)) return;
      const socket = request.raw.socket;
      socket.end();
      socket.setTimeout(REFUSED_LINGER_MS, () => socket.destroy());
    }),
  );
}

function bytesOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

/**
 * Joins a WebSocket to a stream both ways: `first` (if any), then what the stream gives, goes out in
 * binary frames; what the client sends, binary or text, is written to the stream. The socket closes
 * with `endReason` when the stream ends, and the stream is destroyed when the socket closes.
 */
export function joinWebSocket(socket: WebSocket, stream: Duplex, options: { first: Buffer; endReason: string }): void {
  if (options.first.length > 0) socket.send(options.first, { binary: true });
  const resume = () => {
    if (socket.bufferedAmount < SEND_HIGH_WATER_BYTES) stream.resume();
  };
  stream.on('data', (chunk: Buffer) => {
    socket.send(chunk, { binary: true }, resume);
    if (socket.bufferedAmount >= SEND_HIGH_WATER_BYTES) stream.pause();
  });
  const end = () => socket.close(1000, options.endReason);
  stream.once('end', end);
  stream.once('close', end);
  stream.once('error', () => socket.close(1011, 'The stream failed'));
  socket.on('message', (data) => {
    if (stream.write(bytesOf(data))) return;
    socket.pause();
    stream.once('drain', () => socket.resume());
  });
  socket.once('close', () => stream.destroy());
}
