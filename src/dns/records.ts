import type { Answer, CaaData } from 'dns-packet';
import type { ZoneRecord, ZoneRecordType } from './zone.ts';

/** The record types of the zone model, the only ones served and transferred. */
export const ZONE_RECORD_TYPES: readonly ZoneRecordType[] = ['SOA', 'NS', 'A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'PTR', 'CAA'];

/** A name as the zone model holds it: lower case, no trailing dot (the root stays `.`). */
export function modelName(name: string): string {
  const lower = name.toLowerCase();
  return lower === '.' ? lower : lower.replace(/\.$/, '');
}

/** Whether `name` (model form) is `origin` or below it. */
export function isInZone(name: string, origin: string): boolean {
  return name === origin || name.endsWith(`.${origin}`);
}

/**
 * A zone record as a dns-packet answer, owned by `owner` (the name as the client wrote it, for the
 * question's own records). Data is copied: dns-packet rewrites TXT arrays while it encodes them.
 */
export function toAnswer(record: ZoneRecord, owner: string = record.name): Answer {
  const base = { name: owner, ttl: record.ttl, class: 'IN' as const };
  switch (record.type) {
    case 'A':
    case 'AAAA':
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return { ...base, type: record.type, data: record.data };
    case 'MX':
      return { ...base, type: 'MX', data: { ...record.data } };
    case 'TXT':
      return { ...base, type: 'TXT', data: [...record.data] };
    case 'SRV':
      return { ...base, type: 'SRV', data: { ...record.data } };
    case 'CAA':
      // dns-packet types the tag as the three registered ones; the model keeps whatever the zone holds.
      return { ...base, type: 'CAA', data: { ...record.data, tag: record.data.tag as CaaData['tag'] } };
    case 'SOA':
      return { ...base, type: 'SOA', data: { ...record.data } };
  }
}

function text(value: string | Buffer): string {
  return typeof value === 'string' ? value : value.toString('utf8');
}

/** A decoded answer as a zone record (names in model form); null for a type the model does not hold. */
export function fromAnswer(answer: Answer): ZoneRecord | null {
  const base = { name: modelName(answer.name), ttl: answer.type === 'OPT' ? 0 : (answer.ttl ?? 0) };
  switch (answer.type) {
    case 'A':
    case 'AAAA':
      return { ...base, type: answer.type, data: answer.data };
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return { ...base, type: answer.type, data: modelName(answer.data) };
    case 'MX':
      return {
        ...base,
        type: 'MX',
        data: { preference: answer.data.preference ?? 0, exchange: modelName(answer.data.exchange) },
      };
    case 'TXT':
      return { ...base, type: 'TXT', data: (Array.isArray(answer.data) ? answer.data : [answer.data]).map(text) };
    case 'SRV': {
      const { priority = 0, weight = 0, port, target } = answer.data;
      return { ...base, type: 'SRV', data: { priority, weight, port, target: modelName(target) } };
    }
    case 'CAA':
      return { ...base, type: 'CAA', data: { flags: answer.data.flags ?? 0, tag: answer.data.tag, value: answer.data.value } };
    case 'SOA': {
      const { mname, rname, serial = 0, refresh = 0, retry = 0, expire = 0, minimum = 0 } = answer.data;
      return {
        ...base,
        type: 'SOA',
        data: { mname: modelName(mname), rname: modelName(rname), serial, refresh, retry, expire, minimum },
      };
    }
    default:
      return null;
  }
}
