import type { Generated } from 'kysely';

export interface DomainTable {
  id: Generated<number>;
  account_id: number;
  /** Lower case, without a trailing dot. */
  domain: string;
  /** `master` or `slave`. */
  type: string;
  /** `active` or `disabled`. */
  status: string;
  /** Empty when not set. */
  description: string;
  /** The deprecated `group` field (a reserved word in SQL); empty when not set. */
  domain_group: string;
  /** Empty when not set. */
  soa_email: string;
  /** JSON array of IP addresses. */
  master_ips: string;
  /** JSON array of IP addresses. */
  axfr_ips: string;
  /** Seconds as stored (0: the default). */
  expire_sec: number;
  refresh_sec: number;
  retry_sec: number;
  ttl_sec: number;
  serial: number;
  created: string;
  updated: string;
}

export interface DomainRecordTable {
  id: Generated<number>;
  account_id: number;
  domain_id: number;
  type: string;
  /** Relative to the domain, lower case; empty for the domain itself. */
  name: string;
  target: string;
  priority: number;
  weight: number;
  port: number;
  service: string | null;
  protocol: string | null;
  tag: string | null;
  /** 0: the domain's TTL. */
  ttl_sec: number;
  created: string;
  updated: string;
}

/** The zone file last rendered for a domain. */
export interface DomainZoneFileTable {
  domain_id: number;
  account_id: number;
  serial: number;
  /** JSON array of lines. */
  lines: string;
  rendered: string;
}

/** A slave domain's copy of its master's zone, and how checking the masters went. */
export interface DomainSlaveZoneTable {
  domain_id: number;
  account_id: number;
  /** The domain the copy is of (null before the first transfer). */
  origin: string | null;
  serial: number | null;
  /** JSON array of zone records, the SOA first. */
  records: string | null;
  /** `host:port` the copy came from. */
  master: string | null;
  transferred: string | null;
  /** The last time a master answered with this copy's serial or a newer zone. */
  checked: string | null;
  /** The copy is served until then. */
  expires: string | null;
  last_attempt: string;
  /** Why the last check failed; null when it succeeded. */
  last_error: string | null;
}

declare module '../../db/database.ts' {
  interface Database {
    domains: DomainTable;
    domain_records: DomainRecordTable;
    domain_zone_files: DomainZoneFileTable;
    domain_slave_zones: DomainSlaveZoneTable;
  }
}
