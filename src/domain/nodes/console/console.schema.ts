import { Type } from 'typebox';
import { Timestamp } from '../../../http/schemas.ts';

export const ConsoleTicketSchema = Type.Object({
  ticket: Type.String({ description: 'Opens the console once, within 30 seconds' }),
  url: Type.String({ description: 'The WebSocket URL to connect to, with the ticket' }),
  expires: Timestamp,
});

export const ConsoleConnectQuery = Type.Object({
  ticket: Type.Optional(Type.String({ maxLength: 128, description: 'From POST /node/instances/{nodeId}/console' })),
});
