import type { Insertable } from 'kysely';
import { domainNameProblem, hostNameProblem, isIpAddress } from '../../dns/names.ts';
import { type ErrorItem, fail } from '../../errors.ts';
import { roundDomainSeconds, TIMING_FIELDS } from './dns-timing.ts';
import type { DomainRow } from './domain.repository.ts';
import type { DomainStatus, DomainType, UpdateDomain } from './domain.schema.ts';
import type { DomainTable } from './domain.table.ts';

/** A domain as a create, update or clone would leave it, before its checks. */
export interface DomainCandidate {
  domain: string;
  type: DomainType;
  status: DomainStatus;
  description: string;
  group: string;
  soa_email: string;
  master_ips: string[];
  axfr_ips: string[];
  expire_sec: number;
  refresh_sec: number;
  retry_sec: number;
  ttl_sec: number;
}

/** A stored domain as a candidate, for a change or a copy. */
export function candidateOf(row: DomainRow): DomainCandidate {
  return {
    domain: row.domain,
    type: row.type as DomainType,
    status: row.status as DomainStatus,
    description: row.description,
    group: row.domain_group,
    soa_email: row.soa_email,
    master_ips: JSON.parse(row.master_ips) as string[],
    axfr_ips: JSON.parse(row.axfr_ips) as string[],
    expire_sec: row.expire_sec,
    refresh_sec: row.refresh_sec,
    retry_sec: row.retry_sec,
    ttl_sec: row.ttl_sec,
  };
}

/** What a new domain holds where its create body is silent. */
export const NEW_DOMAIN: Omit<DomainCandidate, 'domain' | 'type'> = {
  status: 'active',
  description: '',
  group: '',
  soa_email: '',
  master_ips: [],
  axfr_ips: [],
  expire_sec: 0,
  refresh_sec: 0,
  retry_sec: 0,
  ttl_sec: 0,
};

/** `base` with each field the body sends in place of its own (the name in lower case). */
export function withChanges(base: DomainCandidate, body: UpdateDomain): DomainCandidate {
  return {
    domain: body.domain?.toLowerCase() ?? base.domain,
    type: body.type ?? base.type,
    status: body.status ?? base.status,
    description: body.description ?? base.description,
    group: body.group ?? base.group,
    soa_email: body.soa_email ?? base.soa_email,
    master_ips: body.master_ips ?? base.master_ips,
    axfr_ips: body.axfr_ips ?? base.axfr_ips,
    expire_sec: body.expire_sec ?? base.expire_sec,
    refresh_sec: body.refresh_sec ?? base.refresh_sec,
    retry_sec: body.retry_sec ?? base.retry_sec,
    ttl_sec: body.ttl_sec ?? base.ttl_sec,
  };
}

export type DomainColumns = Omit<Insertable<DomainTable>, 'account_id' | 'serial' | 'created' | 'updated'>;

/** Local parts an SOA mailbox carries safely (a master file gives `;`, `(`, `"` and the like meanings). */
const MAILBOX_LOCAL = /^[a-z0-9%+_-]+(?:\.[a-z0-9%+_-]+)*$/i;

/** The SOA's mailbox must fit the SOA: its local part one DNS label, its domain a host name. */
function soaEmailProblem(email: string): string | null {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, Math.max(at, 0));
  const host = email.slice(at + 1).toLowerCase();
  if (local.length > 63 || !MAILBOX_LOCAL.test(local)) {
    return 'Must be an email address whose local part is at most 63 letters, digits, dots and %+_-';
  }
  if (!host.includes('.') || hostNameProblem(host)) return 'Must be an email address at a valid domain';
  return null;
}

function ipProblems(field: 'master_ips' | 'axfr_ips', ips: readonly string[]): ErrorItem[] {
  return ips.flatMap((ip, i) =>
    isIpAddress(ip) ? [] : [{ field: `${field}[${i}]`, reason: 'Must be an IPv4 or IPv6 address' }],
  );
}

/**
 * The columns to store for a domain, or a 400 listing every field that is wrong: a master needs
 * `soa_email`, a slave at least one of `master_ips`, both lists hold IP addresses, and the timing
 * fields round up to a valid value (0 stays: the default).
 */
export function domainColumns(c: DomainCandidate): DomainColumns {
  const problems: ErrorItem[] = [];
  const domainProblem = domainNameProblem(c.domain);
  if (domainProblem) problems.push({ field: 'domain', reason: domainProblem });
  if (c.type === 'master' && c.soa_email === '') {
    problems.push({ field: 'soa_email', reason: 'soa_email is required for master domains' });
  }
  if (c.soa_email !== '') {
    const problem = soaEmailProblem(c.soa_email);
    if (problem) problems.push({ field: 'soa_email', reason: problem });
  }
  if (c.type === 'slave' && c.master_ips.length === 0) {
    problems.push({ field: 'master_ips', reason: 'A slave domain needs at least one master IP address' });
  }
  problems.push(...ipProblems('master_ips', c.master_ips), ...ipProblems('axfr_ips', c.axfr_ips));
  if (problems.length > 0) throw fail.invalid(problems);
  const timing = Object.fromEntries(TIMING_FIELDS.map((f) => [f, roundDomainSeconds(c[f])])) as Record<
    (typeof TIMING_FIELDS)[number],
    number
  >;
  return {
    domain: c.domain,
    type: c.type,
    status: c.status,
    description: c.description,
    domain_group: c.group,
    soa_email: c.soa_email,
    master_ips: JSON.stringify(c.master_ips),
    axfr_ips: JSON.stringify(c.axfr_ips),
    ...timing,
  };
}
