import {
  type Answer,
  AUTHORITATIVE_ANSWER,
  CHECKING_DISABLED,
  type DecodedPacket,
  DNSSEC_OK,
  decode,
  encodingLength,
  type OptAnswer,
  type Packet,
  RECURSION_DESIRED,
  TRUNCATED_RESPONSE,
} from 'dns-packet';

/** The response codes Cumulo sends (RFC 1035, 2136; BADVERS from RFC 6891 needs the OPT record). */
export const Rcode = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  NOTAUTH: 9,
  BADVERS: 16,
} as const;

export type RcodeValue = (typeof Rcode)[keyof typeof Rcode];

export const OPCODE_QUERY = 0;
/** RFC 1996: a master telling its slaves that a zone changed. */
export const OPCODE_NOTIFY = 4;

/** UDP without EDNS (RFC 1035). */
export const CLASSIC_UDP_SIZE = 512;
/** The UDP payload Cumulo advertises and sends at most: the DNS flag day 2020 size, which does not fragment. */
export const EDNS_UDP_SIZE = 1232;

export function opcodeOf(packet: Packet): number {
  return ((packet.flags ?? 0) >> 11) & 0xf;
}

/** The full response code: the header's four bits and, with EDNS, the OPT record's upper eight. */
export function rcodeOf(packet: Packet): number {
  const opt = packet.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
  return ((opt?.extendedRcode ?? 0) << 4) | ((packet.flags ?? 0) & 0xf);
}

export interface Edns {
  udpPayloadSize: number;
  version: number;
  dnssecOk: boolean;
}

/** The query's EDNS record; 'invalid' for more than one (FORMERR, RFC 6891 6.1.1). */
export function ednsOf(query: Packet): Edns | null | 'invalid' {
  const opts = (query.additionals ?? []).filter((a): a is OptAnswer => a.type === 'OPT');
  const opt = opts[0];
  if (opts.length > 1) return 'invalid';
  if (!opt) return null;
  return { udpPayloadSize: opt.udpPayloadSize, version: opt.ednsVersion, dnssecOk: (opt.flags & DNSSEC_OK) !== 0 };
}

/** How large a UDP answer to this query may be. */
export function udpLimit(edns: Edns | null): number {
  return edns ? Math.max(CLASSIC_UDP_SIZE, Math.min(edns.udpPayloadSize, EDNS_UDP_SIZE)) : CLASSIC_UDP_SIZE;
}

export interface ReplyParts {
  rcode: RcodeValue;
  authoritative?: boolean;
  answers?: Answer[];
  authorities?: Answer[];
  additionals?: Answer[];
  /** Echo the question (false when it could not be read). */
  withQuestion?: boolean;
}

/**
 * The response to `query`: its id, opcode, RD and CD bits and question as asked, and an OPT record when
 * the query had one (RFC 6891), which carries the upper bits of an extended response code.
 */
export function replyTo(query: DecodedPacket, parts: ReplyParts): Packet {
  const edns = ednsOf(query);
  const additionals = [...(parts.additionals ?? [])];
  if (edns && edns !== 'invalid') {
    additionals.push({
      name: '.',
      type: 'OPT',
      udpPayloadSize: EDNS_UDP_SIZE,
      extendedRcode: parts.rcode >> 4,
      ednsVersion: 0,
      flags: edns.dnssecOk ? DNSSEC_OK : 0,
      flag_do: edns.dnssecOk,
      options: [],
    });
  }
  const queryFlags = query.flags ?? 0;
  return {
    type: 'response',
    id: query.id ?? 0,
    flags:
      (opcodeOf(query) << 11) |
      (parts.authoritative ? AUTHORITATIVE_ANSWER : 0) |
      (queryFlags & (RECURSION_DESIRED | CHECKING_DISABLED)) |
      (parts.rcode & 0xf),
    questions: parts.withQuestion === false ? [] : (query.questions ?? []),
    answers: parts.answers ?? [],
    authorities: parts.authorities ?? [],
    additionals,
  };
}

/**
 * A UDP response that fits `limit` bytes: as it is, or with TC set and only the question and OPT record
 * left, so that the client asks again over TCP (RFC 2181 9: a partial RRset would be no use).
 */
export function fitUdp(response: Packet, limit: number): Packet {
  if (encodingLength(response) <= limit) return response;
  return {
    ...response,
    flags: (response.flags ?? 0) | TRUNCATED_RESPONSE,
    answers: [],
    authorities: [],
    additionals: (response.additionals ?? []).filter((a) => a.type === 'OPT'),
  };
}

export type ParsedQuery =
  | { kind: 'query'; query: DecodedPacket }
  | { kind: 'notify'; query: DecodedPacket }
  | { kind: 'reply'; reply: Packet }
  | { kind: 'ignore' };

/**
 * Reads a message a client sent. Garbage too short for a header, and responses (which must never be
 * answered, or two servers could loop), are ignored; a query whose body does not decode gets FORMERR,
 * as does one without exactly one question or with two OPT records; opcodes other than QUERY and
 * NOTIFY get NOTIMP, EDNS versions above 0 BADVERS.
 */
export function parseQuery(message: Buffer): ParsedQuery {
  if (message.length < 12) return { kind: 'ignore' };
  let query: DecodedPacket;
  try {
    query = decode(message);
  } catch {
    // The header alone, decoded by dns-packet as a message with empty sections.
    const header = decode(Buffer.concat([message.subarray(0, 4), Buffer.alloc(8)]));
    if (header.type === 'response') return { kind: 'ignore' };
    return { kind: 'reply', reply: replyTo(header, { rcode: Rcode.FORMERR, withQuestion: false }) };
  }
  if (query.type === 'response') return { kind: 'ignore' };
  const opcode = opcodeOf(query);
  if (opcode !== OPCODE_QUERY && opcode !== OPCODE_NOTIFY) {
    return { kind: 'reply', reply: replyTo(query, { rcode: Rcode.NOTIMP, withQuestion: (query.questions?.length ?? 0) === 1 }) };
  }
  const edns = ednsOf(query);
  if (query.questions?.length !== 1 || edns === 'invalid') {
    return { kind: 'reply', reply: replyTo({ ...query, additionals: [] }, { rcode: Rcode.FORMERR, withQuestion: false }) };
  }
  if (edns && edns.version > 0) return { kind: 'reply', reply: replyTo(query, { rcode: Rcode.BADVERS }) };
  return { kind: opcode === OPCODE_NOTIFY ? 'notify' : 'query', query };
}
