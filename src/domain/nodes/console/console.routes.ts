import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MachineConsole } from '../../../compute/driver.ts';
import { fail } from '../../../errors.ts';
import { API_PREFIX } from '../../../http/openapi.ts';
import { publicBaseUrl } from '../../../http/public-url.ts';
import { joinWebSocket, registerWebSockets } from '../../../http/websocket.ts';
import { access, principalOf } from '../../account/route-access.ts';
import { tags, writeNodes } from '../node.routes.ts';
import { NodeParams } from '../node.schema.ts';
import { ConsoleConnectQuery, ConsoleTicketSchema } from './console.schema.ts';
import { issueConsoleTicket, openConsole } from './console.service.ts';

/** What a client may send in one message (keystrokes, a pasted line): larger ones close the connection (1009). */
const MAX_MESSAGE_BYTES = 64 * 1024;

/**
 * A node's serial console: a ticket (POST), then a WebSocket that replays the console's screen and
 * carries it both ways. Extensions of the API (the reference has no console), documented as such.
 */
export const nodeConsoleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  await registerWebSockets(app, { maxMessageBytes: MAX_MESSAGE_BYTES });
  app.post(
    '/node/instances/:nodeId/console',
    {
      schema: {
        operationId: 'createNodeConsoleTicket',
        tags,
        summary: "A ticket for a node's serial console",
        description:
          'A single-use ticket, valid for 30 seconds, and the WebSocket URL that opens the console with it. ' +
          'The node must be running on a server with real nodes (CUMULO_COMPUTE=qemu).',
        params: NodeParams,
        response: { 200: ConsoleTicketSchema },
      },
      config: { access: writeNodes },
    },
    async (request) =>
      issueConsoleTicket(
        ctx,
        principalOf(request),
        request.params.nodeId,
        `${publicBaseUrl(request, ctx.config.publicUrl)}${API_PREFIX}`,
      ),
  );

  // Opened by the preHandler, before the handshake is answered, so that a refusal is an HTTP answer.
  const opened = new WeakMap<object, MachineConsole>();
  app.route({
    method: 'GET',
    url: '/node/instances/:nodeId/console/connect',
    schema: {
      operationId: 'connectNodeConsole',
      tags,
      summary: "Connect to a node's serial console (WebSocket)",
      description:
        'A WebSocket handshake, with the ticket from POST /node/instances/{nodeId}/console, or a token ' +
        '(Authorization header, or the subprotocols `cumulo-console, cumulo-token.<token>`, answered with ' +
        '`cumulo-console`). The console screen is replayed first; then binary frames carry its output, and ' +
        'what the client sends (binary or text) is typed into it. The server closes the socket (1000) when ' +
        'the machine stops. A plain GET is refused (400).',
      params: NodeParams,
      querystring: ConsoleConnectQuery,
      response: { 101: { description: 'Switching Protocols: the console, as a WebSocket', type: 'null' } },
    },
    config: { access: access('nodes:read_write', undefined, true) },
    preHandler: async (request) => {
      const machineConsole = await openConsole(
        ctx,
        { principal: request.principal, ticket: request.query.ticket },
        request.params.nodeId,
      );
      opened.set(request, machineConsole);
    },
    handler: async () => {
      throw fail.badRequest(
        'This URL takes a WebSocket handshake (Upgrade: websocket); the console is not served over plain HTTP',
      );
    },
    wsHandler: (socket, request) => {
      const machineConsole = opened.get(request);
      if (!machineConsole) return socket.close(1011, 'The console was not opened');
      opened.delete(request);
      request.log.info({ node: request.params }, 'console attached');
      joinWebSocket(socket, machineConsole.attach(), { first: machineConsole.screen(), endReason: 'The machine stopped' });
    },
  });
};
