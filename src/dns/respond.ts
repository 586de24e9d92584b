import { encode, type Packet } from 'dns-packet';
import type { Logger } from 'pino';
import { answerQuery, type Transport } from './answer.ts';
import { parseQuery, Rcode, replyTo } from './message.ts';
import { modelName } from './records.ts';
import { isTransferType, transferResponses } from './transfer.ts';
import type { Zone, ZoneSource } from './zone.ts';

export interface Client {
  address: string;
  transport: Transport;
}

function encodeAll(packets: Packet[]): Buffer[] {
  return packets.map((packet) => encode(packet));
}

/**
 * The encoded messages that answer one message from a client: none for what must not be answered, one
 * for a query, several for a zone transfer. A zone source that fails, or data that does not encode,
 * gets SERVFAIL.
 */
export async function respond(message: Buffer, client: Client, source: ZoneSource, log: Logger): Promise<Buffer[]> {
  const parsed = parseQuery(message);
  if (parsed.kind === 'ignore') return [];
  if (parsed.kind === 'reply') return encodeAll([parsed.reply]);
  const { query } = parsed;
  const question = query.questions?.[0];
  if (!question) return [];
  try {
    const zone: Zone | null = await source.zoneFor(modelName(question.name));
    if (isTransferType(question.type)) return encodeAll(transferResponses(query, zone, client));
    return encodeAll([answerQuery(query, zone, client.transport)]);
  } catch (err) {
    log.error({ err, name: question.name, type: question.type }, 'DNS query failed');
    return encodeAll([replyTo(query, { rcode: Rcode.SERVFAIL, withQuestion: false })]);
  }
}
