import type { Answer, DecodedPacket, Packet, Question } from 'dns-packet';
import { ednsOf, fitUdp, Rcode, type ReplyParts, replyTo, udpLimit } from './message.ts';
import { isInZone, modelName, toAnswer } from './records.ts';
import type { Zone } from './zone.ts';
import { lookupName, soaOf } from './zone-lookup.ts';

export type Transport = 'udp' | 'tcp';

/** How many CNAMEs in a row are followed inside a zone before the answer stops (loops included). */
const MAX_CNAME_CHAIN = 8;

/** NODATA and NXDOMAIN carry the SOA, with the negative-caching TTL of RFC 2308 5. */
function negative(zone: Zone, rcode: typeof Rcode.NOERROR | typeof Rcode.NXDOMAIN, answers: Answer[]): ReplyParts {
  const soa = soaOf(zone);
  if (!soa) return { rcode: Rcode.SERVFAIL };
  const authority = toAnswer({ ...soa, ttl: Math.min(soa.ttl, soa.data.minimum) });
  return { rcode, authoritative: true, answers, authorities: [authority] };
}

/**
 * The authoritative answer from `zone` to `question`. ANY gets every record at the name. CNAMEs are
 * followed while their targets stay in the zone; the response code is that of the last name (RFC 6604).
 * A name at or below a delegation gets a referral (not authoritative). Additional-section processing
 * (addresses of MX, NS and SRV targets) is left out: minimal responses.
 */
function answerFromZone(question: Question, zone: Zone): ReplyParts {
  const type = String(question.type);
  const answers: Answer[] = [];
  const followed = new Set<string>();
  let name = modelName(question.name);
  let owner = question.name;
  if (!isInZone(name, zone.origin)) return { rcode: Rcode.REFUSED };
  for (let step = 0; step <= MAX_CNAME_CHAIN; step++) {
    followed.add(name);
    const found = lookupName(zone, name, type);
    if (found.kind === 'delegation') {
      if (step > 0) break;
      const glue = found.glue.map((r) => toAnswer(r));
      return { rcode: Rcode.NOERROR, authorities: found.ns.map((r) => toAnswer(r)), additionals: glue };
    }
    if (found.kind === 'missing') return negative(zone, Rcode.NXDOMAIN, answers);
    if (found.kind === 'empty') return negative(zone, Rcode.NOERROR, answers);
    const cname = found.records.find((r) => r.type === 'CNAME');
    if (cname && type !== 'CNAME' && type !== 'ANY') {
      answers.push(toAnswer(cname, owner));
      const target = modelName(String(cname.data));
      if (followed.has(target) || !isInZone(target, zone.origin)) break;
      name = target;
      owner = target;
      continue;
    }
    const matching = type === 'ANY' ? found.records : found.records.filter((r) => r.type === type);
    if (matching.length === 0) return negative(zone, Rcode.NOERROR, answers);
    answers.push(...matching.map((r) => toAnswer(r, owner)));
    break;
  }
  return { rcode: Rcode.NOERROR, authoritative: true, answers };
}

/**
 * The response to a parsed QUERY (see parseQuery) from the zone that holds its name, or null when no
 * served zone does: REFUSED, not authoritative. Only class IN (or ANY) is served. Over UDP the response
 * is cut to the client's size, with TC set, when it does not fit.
 */
export function answerQuery(query: DecodedPacket, zone: Zone | null, transport: Transport): Packet {
  const question = query.questions?.[0];
  const servedClass = question?.class === undefined || question.class === 'IN' || question.class === 'ANY';
  const parts = question && zone && servedClass ? answerFromZone(question, zone) : { rcode: Rcode.REFUSED };
  const response = replyTo(query, parts);
  if (transport === 'tcp') return response;
  const edns = ednsOf(query);
  return fitUdp(response, udpLimit(edns === 'invalid' ? null : edns));
}
