import { isInZone } from './records.ts';
import type { Zone, ZoneRecord } from './zone.ts';

interface ZoneIndex {
  byName: Map<string, ZoneRecord[]>;
  /** Owner names and every name between one and the origin (empty non-terminals), the origin too. */
  existing: Set<string>;
}

/** A zone object is indexed once, however many questions it answers. */
const indexes = new WeakMap<Zone, ZoneIndex>();

/** The names from `name` up to, not including, `origin`: `a.b.example.com`, `b.example.com`. */
function namesUpTo(name: string, origin: string): string[] {
  const names: string[] = [];
  for (let n = name; n !== origin && n.endsWith(`.${origin}`); n = n.slice(n.indexOf('.') + 1)) names.push(n);
  return names;
}

function indexOf(zone: Zone): ZoneIndex {
  const known = indexes.get(zone);
  if (known) return known;
  const index: ZoneIndex = { byName: new Map(), existing: new Set([zone.origin]) };
  for (const record of zone.records) {
    if (!isInZone(record.name, zone.origin)) continue;
    const list = index.byName.get(record.name) ?? [];
    list.push(record);
    index.byName.set(record.name, list);
    for (const n of namesUpTo(record.name, zone.origin)) index.existing.add(n);
  }
  indexes.set(zone, index);
  return index;
}

export type NameLookup =
  /** The name is at or below a zone cut (NS records below the apex): only a referral can be given. */
  | { kind: 'delegation'; ns: ZoneRecord[]; glue: ZoneRecord[] }
  /** The records at the name, or those of the wildcard that covers it (RFC 4592). */
  | { kind: 'found'; records: ZoneRecord[] }
  /** The name exists without records of its own: an empty non-terminal. */
  | { kind: 'empty' }
  | { kind: 'missing' };

function delegationAbove(zone: Zone, index: ZoneIndex, name: string, type: string): NameLookup | null {
  // From the apex down: the highest cut wins (RFC 1034 4.3.2).
  for (const n of namesUpTo(name, zone.origin).reverse()) {
    const ns = (index.byName.get(n) ?? []).filter((r) => r.type === 'NS');
    // DS belongs to the parent side of a cut.
    if (ns.length === 0 || (n === name && type === 'DS')) continue;
    const targets = new Set(ns.map((r) => String(r.data)));
    const glue = [...targets]
      .filter((target) => isInZone(target, n))
      .flatMap((target) => (index.byName.get(target) ?? []).filter((r) => r.type === 'A' || r.type === 'AAAA'));
    return { kind: 'delegation', ns, glue };
  }
  return null;
}

/** What the zone holds at `name` (model form, inside the zone) for a question of `type`. */
export function lookupName(zone: Zone, name: string, type: string): NameLookup {
  const index = indexOf(zone);
  const delegation = delegationAbove(zone, index, name, type);
  if (delegation) return delegation;
  const records = index.byName.get(name);
  if (records) return { kind: 'found', records };
  if (index.existing.has(name)) return { kind: 'empty' };
  // The closest encloser: the nearest existing ancestor; its `*` child, if any, stands for the name.
  let encloser = name.slice(name.indexOf('.') + 1);
  while (!index.existing.has(encloser) && encloser !== zone.origin) encloser = encloser.slice(encloser.indexOf('.') + 1);
  const wildcard = index.byName.get(`*.${encloser}`);
  return wildcard ? { kind: 'found', records: wildcard } : { kind: 'missing' };
}

/** The zone's SOA record (at the apex). */
export function soaOf(zone: Zone): Extract<ZoneRecord, { type: 'SOA' }> | undefined {
  return zone.records.find((r): r is Extract<ZoneRecord, { type: 'SOA' }> => r.type === 'SOA' && r.name === zone.origin);
}
