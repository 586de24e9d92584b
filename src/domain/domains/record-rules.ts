import net from 'node:net';
import type { Insertable } from 'kysely';
import {
  absoluteName,
  hostNameProblem,
  MAX_NAME_LENGTH,
  plainName,
  relativeName,
  relativeNameProblem,
  targetHost,
} from '../../dns/names.ts';
import { type ErrorItem, fail } from '../../errors.ts';
import { roundRecordTtl } from './dns-timing.ts';
import type { DomainRecordTable } from './domain.table.ts';
import type { CaaTag, RecordType } from './record.schema.ts';
import { txtStrings, txtTooLong } from './txt-strings.ts';

/** A record as a create or update asks for it: the type, and whatever fields were given or kept. */
export interface RecordCandidate {
  type: RecordType;
  name?: string | undefined;
  target?: string | undefined;
  priority?: number | undefined;
  weight?: number | undefined;
  port?: number | undefined;
  service?: string | null | undefined;
  protocol?: string | null | undefined;
  /** Rounded to a valid TTL; left out, 0: the domain's TTL. */
  ttl_sec?: number | undefined;
  tag?: CaaTag | null | undefined;
}

/** A record as stored (service and protocol without the underscore the API shows): fields its type does not use are 0 or null. */
export type RecordValues = Omit<Insertable<DomainRecordTable>, 'id' | 'account_id' | 'domain_id' | 'created' | 'updated'> & {
  type: RecordType;
  tag: CaaTag | null;
};

/** The target a request names by `[remote_addr]`: the address the request came from. */
export const REMOTE_ADDR = '[remote_addr]';

/**
 * An SRV service or protocol as stored, without the underscore it is shown and served with: with it,
 * one DNS label (at most 63 characters) of letters, digits, hyphens and underscores (`_service_test`).
 */
const SERVICE_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,60}[a-z0-9_])?$/;
const CAA_PARAMETER = /^[a-z0-9]+=[\x21-\x3a\x3c-\x7e]*$/i;
const PRINTABLE = /^[\x20-\x7e]*$/;

type Problems = ErrorItem[];

/**
 * An A or AAAA record's address, and the type its family makes the record: the live service takes
 * either type with either family (its console adds every A/AAAA record as AAAA) and stores an IPv4
 * address as A, an IPv6 one as AAAA. `[remote_addr]` is the request's own address.
 */
function address(target: string, remote: string | null, problems: Problems): { value: string; type?: 'A' | 'AAAA' } {
  let value = target;
  if (target === REMOTE_ADDR) {
    value = remote?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '') ?? '';
    if (net.isIP(value) === 0) {
      problems.push({ field: 'target', reason: `${REMOTE_ADDR} stands for the request's address, which is not an IP address` });
      return { value: target };
    }
  }
  const family = net.isIP(value);
  if (family === 0) {
    const trailing = value.endsWith('.') ? '; A and AAAA targets take no trailing period' : '';
    problems.push({ field: 'target', reason: `Must be an IPv4 or IPv6 address${trailing}` });
    return { value: value.toLowerCase() };
  }
  return { value: value.toLowerCase(), type: family === 4 ? 'A' : 'AAAA' };
}

function host(target: string, domain: string, problems: Problems): string {
  const value = targetHost(target, domain);
  const problem = hostNameProblem(value);
  if (problem) problems.push({ field: 'target', reason: problem });
  return value;
}

/** `issuer.example[; key=value ...]`, or for iodef an http(s) or mailto URL. */
function caaValueProblem(tag: CaaTag, value: string): string | null {
  if (!PRINTABLE.test(value)) return 'A CAA value holds printable ASCII characters only';
  if (value.endsWith('.')) return 'A CAA target takes no trailing period';
  if (tag === 'iodef') {
    const mail = /^mailto:([^@\s]+)@([^@\s]+)$/i.exec(value);
    if (mail) return hostNameProblem(plainName(mail[2] ?? '')) ? 'mailto: needs a valid email address' : null;
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      // Not a URL: refused below.
    }
    const ok = url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    return ok ? null : 'An iodef value is an http(s) or mailto: URL';
  }
  const [issuer = '', ...parameters] = value.split(';').map((p) => p.trim());
  if (tag === 'issuewild' && issuer.startsWith('*')) return 'An issuewild issuer must not begin with *';
  if (issuer === '' || hostNameProblem(issuer.toLowerCase()) || !issuer.includes('.')) {
    return `An ${tag} value is the certificate issuer's domain (letsencrypt.org), optionally followed by ; key=value parameters`;
  }
  if (parameters.some((p) => !CAA_PARAMETER.test(p))) return 'CAA parameters are written key=value, separated by ;';
  return null;
}

function serviceLabel(value: string | null | undefined, field: string, problems: Problems): string | null {
  if (value === undefined || value === null || value === '') return null;
  // Sent with its underscore (`_sip`) or without (`sip`): the same service.
  const label = value.replace(/^_/, '').toLowerCase();
  if (!SERVICE_LABEL.test(label)) {
    const reason = 'Must be up to 62 letters, digits, hyphens and underscores, not ending in a hyphen (a _ goes before it)';
    problems.push({ field, reason });
  }
  return label;
}

function required<T>(value: T | undefined | null, field: string, type: RecordType, problems: Problems): T | undefined {
  if (value === undefined || value === null || value === '') {
    problems.push({ field, reason: `${field} is required for ${type} records` });
    return undefined;
  }
  return value;
}

/**
 * The values to store for a record of `domain`, or a 400 listing every field that is wrong. Fields a
 * type does not use are ignored (the reference's own examples send them) and stored as 0 or null.
 */
export function recordValues(c: RecordCandidate, domain: string, remote: string | null): RecordValues {
  const problems: Problems = [];
  const type = c.type;
  const values: RecordValues = {
    type,
    name: relativeName(c.name ?? '', domain),
    target: c.target ?? '',
    priority: 0,
    weight: 0,
    port: 0,
    service: null,
    protocol: null,
    tag: null,
    ttl_sec: c.ttl_sec === undefined ? 0 : roundRecordTtl(c.ttl_sec),
  };
  // Only MX takes an empty target: a null MX (RFC 7505).
  const target = type === 'MX' && c.target === '' ? '' : required(c.target, 'target', type, problems);

  if (type === 'SRV') {
    const service = serviceLabel(required(c.service, 'service', type, problems), 'service', problems);
    const protocol = serviceLabel(c.protocol, 'protocol', problems) ?? 'tcp';
    values.service = service;
    values.protocol = protocol;
    values.name = `_${service ?? ''}._${protocol}`;
    values.priority = required(c.priority, 'priority', type, problems) ?? 0;
    values.weight = required(c.weight, 'weight', type, problems) ?? 0;
    values.port = required(c.port, 'port', type, problems) ?? 0;
  }
  if (type === 'CNAME' && values.name === '') {
    problems.push({ field: 'name', reason: 'name is required for CNAME records and cannot be the domain itself' });
  }
  if (type !== 'SRV' && values.name !== '') {
    const problem = relativeNameProblem(values.name);
    if (problem) problems.push({ field: 'name', reason: problem });
  }
  if (absoluteName(values.name, domain).length > MAX_NAME_LENGTH) {
    problems.push({ field: 'name', reason: `The full name is longer than ${MAX_NAME_LENGTH} characters` });
  }

  if (target !== undefined) {
    switch (type) {
      case 'A':
      case 'AAAA': {
        const { value, type: ofFamily } = address(target, remote, problems);
        values.target = value;
        if (ofFamily) values.type = ofFamily;
        break;
      }
      case 'MX':
        values.priority = c.priority ?? 0;
        if (target === '' || target === '.') {
          values.target = '';
          if (values.priority !== 0)
            problems.push({ field: 'priority', reason: 'A null MX record (empty target) has priority 0' });
        } else values.target = host(target, domain, problems);
        break;
      case 'NS':
      case 'CNAME':
      case 'PTR':
      case 'SRV':
        values.target = host(target, domain, problems);
        break;
      case 'TXT':
        if (txtTooLong(txtStrings(target))) problems.push({ field: 'target', reason: 'The text does not fit in one TXT record' });
        break;
      case 'CAA': {
        const tag = required(c.tag, 'tag', type, problems);
        if (tag) {
          values.tag = tag;
          const problem = caaValueProblem(tag, target);
          if (problem) problems.push({ field: 'target', reason: problem });
        }
        break;
      }
    }
  } else if (type === 'CAA') {
    values.tag = required(c.tag, 'tag', type, problems) ?? null;
  }
  if (problems.length > 0) throw fail.invalid(problems);
  return values;
}
