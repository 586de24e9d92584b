import type { Zone } from '../../dns/zone.ts';
import type { DomainRow } from './domain.repository.ts';

/**
 * Master zones as last built, so that a flood of questions to a big zone does not read its every
 * record for each answer. An entry is used only while the domain row is exactly as it was when the
 * zone was built (every record change gives the domain a new serial, and every domain change a new
 * `updated`), and for at most ZONE_CACHE_MS: a reset or restore by another process, which can bring
 * back a row identical to an older one, shows within that time. One cache per database handle.
 */
const ZONE_CACHE_MS = 1000;
const MAX_ZONES = 64;

interface CachedZone {
  stamp: string;
  zone: Zone | null;
  until: number;
}

const caches = new WeakMap<object, Map<number, CachedZone>>();

function cacheOf(db: object): Map<number, CachedZone> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

const stampOf = (domain: DomainRow) => JSON.stringify(domain);

/** The zone of a master domain: the cached one while the domain is unchanged, else `build`'s, kept. */
export async function cachedZone(db: object, domain: DomainRow, build: () => Promise<Zone | null>): Promise<Zone | null> {
  const cache = cacheOf(db);
  const stamp = stampOf(domain);
  const now = performance.now();
  const hit = cache.get(domain.id);
  if (hit && hit.stamp === stamp && hit.until > now) return hit.zone;
  const zone = await build();
  cache.delete(domain.id);
  if (cache.size >= MAX_ZONES) cache.delete(cache.keys().next().value as number);
  cache.set(domain.id, { stamp, zone, until: now + ZONE_CACHE_MS });
  return zone;
}

/** Drops every cached zone of a database (after a reset or restore in this process). */
export function forgetCachedZones(db: object): void {
  caches.get(db)?.clear();
}
