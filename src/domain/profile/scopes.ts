import { fail } from '../../errors.ts';

export const SCOPE_RESOURCES = [
  'account',
  'domains',
  'events',
  'firewall',
  'images',
  'ips',
  'lke',
  'longview',
  'maintenance',
  'nodebalancers',
  'nodes',
  'object_storage',
  'stackscripts',
  'volumes',
] as const;
export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type ScopeLevel = 'read_only' | 'read_write';
export type Scope = `${ScopeResource}:${ScopeLevel}`;

/** What a token may do: everything, or a level per resource. */
export type ScopeSet = '*' | ReadonlyMap<ScopeResource, ScopeLevel>;

const RESOURCE_SET = new Set<string>(SCOPE_RESOURCES);

/**
 * Parses the reference's scope syntax: `*`, or `resource:level` items separated by
 * spaces or commas. Returns the canonical string and the set.
 */
export function parseScopes(text: string, field = 'scopes'): { canonical: string; set: ScopeSet } {
  const items = text.split(/[\s,]+/).filter(Boolean);
  if (items.length === 0) throw fail.badRequest('Must name at least one scope, or * for all', field);
  if (items.includes('*')) {
    if (items.length > 1) throw fail.badRequest('* already grants every scope; list it alone', field);
    return { canonical: '*', set: '*' };
  }
  const set = new Map<ScopeResource, ScopeLevel>();
  for (const item of items) {
    const [resource, level, ...rest] = item.split(':');
    if (rest.length || !resource || !RESOURCE_SET.has(resource) || (level !== 'read_only' && level !== 'read_write')) {
      throw fail.badRequest(`Invalid scope ${item}: expected <resource>:read_only or <resource>:read_write`, field);
    }
    const r = resource as ScopeResource;
    if (set.get(r) !== 'read_write') set.set(r, level);
  }
  return { canonical: formatScopes(set), set };
}

/** The canonical text of a scope set: `*`, or `resource:level` items sorted by resource. */
export function formatScopes(set: ScopeSet): string {
  if (set === '*') return '*';
  return [...set.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([r, l]) => `${r}:${l}`)
    .join(' ');
}

/** A read_write scope implies read_only on the same resource. */
export function scopeAllows(set: ScopeSet, needed: Scope): boolean {
  if (set === '*') return true;
  const [resource, level] = needed.split(':') as [ScopeResource, ScopeLevel];
  const held = set.get(resource);
  return held === 'read_write' || (held === 'read_only' && level === 'read_only');
}

/** True when `inner` grants nothing beyond `outer` (a token may not create a stronger token). */
export function scopesWithin(inner: ScopeSet, outer: ScopeSet): boolean {
  if (outer === '*') return true;
  if (inner === '*') return false;
  return [...inner.entries()].every(([r, l]) => scopeAllows(outer, `${r}:${l}`));
}

/** Everything either set grants: `*` if one is, else the stronger level of each resource. */
export function unionScopes(a: ScopeSet, b: ScopeSet): ScopeSet {
  if (a === '*' || b === '*') return '*';
  const union = new Map(a);
  for (const [resource, level] of b) if (union.get(resource) !== 'read_write') union.set(resource, level);
  return union;
}
