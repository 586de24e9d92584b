export interface Domain {
  id: number;
  type: 'master' | 'slave';
  domain: string;
  group: string;
  status: 'active' | 'disabled';
  description: string;
  soa_email: string;
  retry_sec: number;
  master_ips: string[];
  axfr_ips: string[];
  expire_sec: number;
  refresh_sec: number;
  ttl_sec: number;
  tags: string[];
}

export const RECORD_TYPES = ['A', 'AAAA', 'NS', 'MX', 'CNAME', 'TXT', 'SRV', 'PTR', 'CAA'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
export const CAA_TAGS = ['issue', 'issuewild', 'iodef'] as const;

export interface DomainRecord {
  id: number;
  type: RecordType;
  name: string;
  target: string;
  priority: number;
  weight: number;
  port: number;
  service: string | null;
  protocol: string | null;
  ttl_sec: number;
  tag: string | null;
  created: string;
  updated: string;
}

/** The seconds the API keeps for a domain's timing fields and a record's TTL (others are rounded to one). */
export const VALID_SECONDS = [300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600, 2419200];

/** 300 → "5 minutes", 86400 → "1 day". */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [604800, 'week'],
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds % size === 0 && seconds >= size) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} s`;
}

/** The choices of a timing field: its default (0) and the valid values. */
export function secondsOptions(defaultText: string) {
  return [{ value: 0, text: defaultText }, ...VALID_SECONDS.map((s) => ({ value: s, text: duration(s) }))];
}

/** Addresses written one a line, or separated by commas or spaces. */
export const addressList = (text: string) => text.split(/[\s,]+/).filter(Boolean);
