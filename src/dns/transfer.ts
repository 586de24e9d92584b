import { type Answer, type DecodedPacket, encodingLength, type Packet } from 'dns-packet';
import { isListedAddress } from './address-list.ts';
import type { Transport } from './answer.ts';
import { Rcode, replyTo } from './message.ts';
import { isInZone, modelName, toAnswer } from './records.ts';
import { serialAtLeast } from './serial.ts';
import type { Zone } from './zone.ts';
import { soaOf } from './zone-lookup.ts';

/** The largest message of a transfer stream: well under TCP's 65535, so that large zones take several. */
export const TRANSFER_MESSAGE_BYTES = 16 * 1024;

export function isTransferType(type: string): boolean {
  return type === 'AXFR' || type === 'IXFR';
}

/** Whether `address` is one of the zone's `axfrIps`. */
export function transferAllowed(zone: Zone, address: string): boolean {
  return isListedAddress(zone.axfrIps, address);
}

/** The answers in messages of at most TRANSFER_MESSAGE_BYTES: the question only in the first. */
function pack(query: DecodedPacket, answers: Answer[]): Packet[] {
  const first = replyTo(query, { rcode: Rcode.NOERROR, authoritative: true });
  const next = () => replyTo({ ...query, additionals: [] }, { rcode: Rcode.NOERROR, authoritative: true, withQuestion: false });
  const messages: Packet[] = [first];
  let current = first;
  let size = encodingLength(first);
  for (const answer of answers) {
    const bytes = encodingLength({ answers: [answer] }) - encodingLength({});
    if (size + bytes > TRANSFER_MESSAGE_BYTES && (current.answers?.length ?? 0) > 0) {
      current = next();
      size = encodingLength(current);
      messages.push(current);
    }
    current.answers?.push(answer);
    size += bytes;
  }
  return messages;
}

/**
 * The response stream to an AXFR or IXFR question (RFC 5936): the SOA, every other record, the SOA
 * again. AXFR needs TCP (FORMERR over UDP); a zone not served is REFUSED, a name inside a zone that is
 * not its apex NOTAUTH, a client outside the zone's `axfrIps` REFUSED. IXFR is answered with the whole
 * zone, as RFC 1995 4 allows, or with the SOA alone when the client has the current serial or asked
 * over UDP (so that it comes back over TCP).
 */
export function transferResponses(
  query: DecodedPacket,
  zone: Zone | null,
  client: { address: string; transport: Transport },
): Packet[] {
  const question = query.questions?.[0];
  const refuse = (rcode: (typeof Rcode)[keyof typeof Rcode]) => [replyTo(query, { rcode })];
  if (!question) return refuse(Rcode.FORMERR);
  const ixfr = question.type === 'IXFR';
  if (!ixfr && client.transport === 'udp') return refuse(Rcode.FORMERR);
  if (!zone) return refuse(Rcode.REFUSED);
  if (modelName(question.name) !== zone.origin) return refuse(Rcode.NOTAUTH);
  if (!transferAllowed(zone, client.address)) return refuse(Rcode.REFUSED);
  const soa = soaOf(zone);
  if (!soa) return refuse(Rcode.SERVFAIL);
  const soaAnswer = toAnswer(soa);
  const clientSoa = query.authorities?.find((a) => a.type === 'SOA');
  const clientSerial = clientSoa?.type === 'SOA' ? clientSoa.data.serial : undefined;
  if (ixfr && (client.transport === 'udp' || (clientSerial !== undefined && serialAtLeast(clientSerial, soa.data.serial)))) {
    return [replyTo(query, { rcode: Rcode.NOERROR, authoritative: true, answers: [soaAnswer] })];
  }
  const rest = zone.records.filter((r) => r.type !== 'SOA' && isInZone(r.name, zone.origin)).map((r) => toAnswer(r));
  return pack(query, [soaAnswer, ...rest, soaAnswer]);
}
