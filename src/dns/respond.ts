import { type DecodedPacket, encode, type Packet } from 'dns-packet';
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
 * The answer to a NOTIFY: NOERROR, authoritative, for a zone kept as a copy of a master at the
 * sender's address (its check is brought forward); REFUSED from anyone else (RFC 1996 3.10).
 */
async function answerNotify(
  query: DecodedPacket,
  zone: string,
  client: Client,
  source: ZoneSource,
  log: Logger,
): Promise<Packet> {
  try {
    const accepted = (await source.notified?.(zone, client.address)) ?? false;
    log.info({ zone, from: client.address, accepted }, 'DNS NOTIFY');
    return replyTo(query, accepted ? { rcode: Rcode.NOERROR, authoritative: true } : { rcode: Rcode.REFUSED });
  } catch (err) {
    log.error({ err, zone }, 'DNS NOTIFY failed');
    return replyTo(query, { rcode: Rcode.SERVFAIL });
  }
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
  if (parsed.kind === 'notify') return encodeAll([await answerNotify(query, modelName(question.name), client, source, log)]);
  try {
    const zone: Zone | null = await source.zoneFor(modelName(question.name));
    if (isTransferType(question.type)) return encodeAll(transferResponses(query, zone, client));
    return encodeAll([answerQuery(query, zone, client.transport)]);
  } catch (err) {
    log.error({ err, name: question.name, type: question.type }, 'DNS query failed');
    return encodeAll([replyTo(query, { rcode: Rcode.SERVFAIL, withQuestion: false })]);
  }
}
