import type { FastifyReply } from 'fastify';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a body that is already JSON text (written by the database, or made once), as it is: no serializer runs. */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type(JSON_TYPE).send(text);
}
