import type { Zone, ZoneRecord } from '../../dns/zone.ts';

/** A name as a master file writes it: absolute, with the root's dot (the root itself is `.`). */
function absolute(name: string): string {
  return name === '.' ? name : `${name}.`;
}

/** A character-string in quotes: `"` and `\` escaped, bytes outside printable ASCII as `\DDD`. */
function quoted(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte <= 0x7e) out += String.fromCharCode(byte);
    else out += `\\${String(byte).padStart(3, '0')}`;
  }
  return `${out}"`;
}

function rdata(record: ZoneRecord): string {
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return record.data;
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return absolute(record.data);
    case 'MX':
      return `${record.data.preference} ${absolute(record.data.exchange)}`;
    case 'TXT':
      return record.data.map(quoted).join(' ');
    case 'SRV': {
      const { priority, weight, port, target } = record.data;
      return `${priority} ${weight} ${port} ${absolute(target)}`;
    }
    case 'CAA':
      return `${record.data.flags} ${record.data.tag} ${quoted(record.data.value)}`;
    case 'SOA': {
      const { mname, rname, serial, refresh, retry, expire, minimum } = record.data;
      return `${absolute(mname)} ${absolute(rname)} ${serial} ${refresh} ${retry} ${expire} ${minimum}`;
    }
  }
}

function* zoneFileLines(zone: Zone): Generator<string> {
  const soa = zone.records.find((r) => r.type === 'SOA');
  yield `; ${zone.origin}${soa?.type === 'SOA' ? ` serial ${soa.data.serial}` : ''}`;
  yield `$ORIGIN ${absolute(zone.origin)}`;
  if (soa) yield `$TTL ${soa.ttl}`;
  for (const record of zone.records) yield `${absolute(record.name)} ${record.ttl} IN ${record.type} ${rdata(record)}`;
}

/**
 * The zone as an RFC 1035 master file, one line an entry: `$ORIGIN`, `$TTL` (the SOA's), then every
 * record with its absolute owner name, TTL and class, the SOA first.
 */
export function renderZoneFile(zone: Zone): string[] {
  return [...zoneFileLines(zone)];
}

/** The same lines as a JSON array, as the zone file is stored, written in one pass without the array. */
export function renderZoneFileJson(zone: Zone): string {
  let json = '[';
  for (const line of zoneFileLines(zone)) json += json === '[' ? JSON.stringify(line) : `,${JSON.stringify(line)}`;
  return `${json}]`;
}
