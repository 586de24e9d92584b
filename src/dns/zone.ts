/*
 * A DNS zone as Cumulo serves it, renders it and transfers it: the one model between the domains
 * group (which builds zones from its tables) and the nameserver (which answers from them). Names are
 * absolute, lower-case, without the trailing dot (`www.example.com`; the apex is the origin itself).
 */

interface RecordBase {
  name: string;
  /** Seconds. */
  ttl: number;
}

export type ZoneRecord = RecordBase &
  (
    | { type: 'A' | 'AAAA'; data: string }
    | { type: 'NS' | 'CNAME' | 'PTR'; data: string }
    | { type: 'MX'; data: { preference: number; exchange: string } }
    /** Character-strings of at most 255 bytes each, in order. */
    | { type: 'TXT'; data: string[] }
    | { type: 'SRV'; data: { priority: number; weight: number; port: number; target: string } }
    | { type: 'CAA'; data: { flags: number; tag: string; value: string } }
    | {
        type: 'SOA';
        data: { mname: string; rname: string; serial: number; refresh: number; retry: number; expire: number; minimum: number };
      }
  );

export type ZoneRecordType = ZoneRecord['type'];

export interface Zone {
  /** The domain: the zone's apex. */
  origin: string;
  /** The SOA first, then the NS records of the apex, then the rest. */
  records: ZoneRecord[];
  /** Addresses allowed to transfer the zone (AXFR). */
  axfrIps: readonly string[];
}

/** Where the nameserver finds the zones it serves. */
export interface ZoneSource {
  /** The served zone holding `name` (the longest served domain that is `name` or a suffix of it), or null. */
  zoneFor(name: string): Promise<Zone | null>;
  /**
   * A NOTIFY (RFC 1996) from `address` that `zone` changed: true when it is a zone kept as a copy of
   * a master at that address, whose check is then brought forward to now.
   */
  notified?(zone: string, address: string): Promise<boolean>;
}
