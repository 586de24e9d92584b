import { absoluteName } from '../../dns/names.ts';
import type { Zone, ZoneRecord } from '../../dns/zone.ts';
import { effectiveSeconds } from './dns-timing.ts';
import type { DomainRow } from './domain.repository.ts';
import type { RecordRow } from './record.repository.ts';
import type { CaaTag } from './record.schema.ts';
import type { SlaveZoneRow } from './slave-zone.repository.ts';
import { txtStrings } from './txt-strings.ts';

/**
 * The SOA's mailbox: `hostmaster@example.com` is `hostmaster.example.com`, a dot in the local part
 * escaped (`first\.last.example.com`). A domain without an address gets `hostmaster.<domain>`.
 */
export function soaMailbox(email: string, origin: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return `hostmaster.${origin}`;
  const local = email.slice(0, at).replaceAll('\\', '\\\\').replaceAll('.', '\\.');
  return `${local}.${email.slice(at + 1)}`.toLowerCase().replace(/\.$/, '');
}

function recordOf(row: RecordRow, origin: string, defaultTtl: number): ZoneRecord {
  const name = absoluteName(row.name, origin);
  const ttl = row.ttl_sec === 0 ? defaultTtl : row.ttl_sec;
  switch (row.type) {
    case 'A':
    case 'AAAA':
      return { name, ttl, type: row.type, data: row.target };
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return { name, ttl, type: row.type, data: row.target };
    case 'MX':
      // A null MX (an empty target) points at the root, which the model writes `.`.
      return { name, ttl, type: 'MX', data: { preference: row.priority, exchange: row.target === '' ? '.' : row.target } };
    case 'TXT':
      return { name, ttl, type: 'TXT', data: txtStrings(row.target) };
    case 'SRV':
      return { name, ttl, type: 'SRV', data: { priority: row.priority, weight: row.weight, port: row.port, target: row.target } };
    case 'CAA':
      return { name, ttl, type: 'CAA', data: { flags: 0, tag: row.tag as CaaTag, value: row.target } };
    default:
      throw new Error(`record ${row.id} has an unknown type ${row.type}`);
  }
}

/**
 * A domain as the zone Cumulo serves and renders: its SOA (the first nameserver as primary, the
 * domain's timing with defaults for 0), the installation's nameservers as the apex NS records, then
 * the domain's own records (the same record twice only once).
 */
export function zoneOf(domain: DomainRow, records: readonly RecordRow[], nameservers: readonly string[]): Zone {
  const origin = domain.domain;
  const ttl = effectiveSeconds('ttl_sec', domain.ttl_sec);
  const soa: ZoneRecord = {
    name: origin,
    ttl,
    type: 'SOA',
    data: {
      mname: nameservers[0] ?? `ns1.${origin}`,
      rname: soaMailbox(domain.soa_email, origin),
      serial: domain.serial,
      refresh: effectiveSeconds('refresh_sec', domain.refresh_sec),
      retry: effectiveSeconds('retry_sec', domain.retry_sec),
      expire: effectiveSeconds('expire_sec', domain.expire_sec),
      minimum: ttl,
    },
  };
  const out: ZoneRecord[] = [soa];
  const seen = new Set<string>();
  const add = (record: ZoneRecord) => {
    const key = JSON.stringify([record.name, record.type, record.data]);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(record);
  };
  for (const ns of nameservers) add({ name: origin, ttl, type: 'NS', data: ns });
  const own = records.map((row) => recordOf(row, origin, ttl));
  for (const record of own) if (record.type === 'NS' && record.name === origin) add(record);
  for (const record of own) if (!(record.type === 'NS' && record.name === origin)) add(record);
  return { origin, records: out, axfrIps: JSON.parse(domain.axfr_ips) as string[] };
}

/**
 * The records of a slave domain's copy of its master's zone, as transferred (the SOA first); null
 * before the first transfer, and for a copy of another name (the domain was renamed since).
 */
export function slaveCopy(domain: Pick<DomainRow, 'domain'>, row: SlaveZoneRow | undefined): ZoneRecord[] | null {
  if (!row?.records || row.origin !== domain.domain) return null;
  return JSON.parse(row.records) as ZoneRecord[];
}

/**
 * The zone a slave domain serves and renders: its copy of the master's zone exactly as transferred
 * (the master's SOA and NS records: a secondary does not rewrite the zone), with the domain's `axfr_ips`.
 */
export function slaveZoneOf(domain: DomainRow, copy: readonly ZoneRecord[]): Zone {
  return { origin: domain.domain, records: [...copy], axfrIps: JSON.parse(domain.axfr_ips) as string[] };
}
