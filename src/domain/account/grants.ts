/** Global grants of a restricted user, with the reference's names. */
export const GLOBAL_GRANT_FLAGS = [
  'add_nodes',
  'add_longview',
  'longview_subscription',
  'cancel_account',
  'add_domains',
  'add_stackscripts',
  'add_nodebalancers',
  'add_images',
  'add_volumes',
  'add_firewalls',
] as const;
export type GlobalGrantFlag = (typeof GLOBAL_GRANT_FLAGS)[number];
export type Permission = 'read_only' | 'read_write';

export type GlobalGrants = Record<GlobalGrantFlag, boolean> & { account_access: Permission | null };

/**
 * Entity kinds that carry per-entity grants, as named in the grants object: the reference's, and
 * `firewall`, which it lacks although firewalls are granted per entity (without it a restricted user
 * could use only the firewalls it made).
 */
export const GRANT_ENTITY_TYPES = [
  'node',
  'domain',
  'nodebalancer',
  'image',
  'longview',
  'stackscript',
  'volume',
  'firewall',
] as const;
export type GrantEntityType = (typeof GRANT_ENTITY_TYPES)[number];

export function noGlobalGrants(): GlobalGrants {
  const flags = Object.fromEntries(GLOBAL_GRANT_FLAGS.map((f) => [f, false])) as Record<GlobalGrantFlag, boolean>;
  return { ...flags, account_access: null };
}

export function parseGlobalGrants(json: string): GlobalGrants {
  return { ...noGlobalGrants(), ...(JSON.parse(json) as Partial<GlobalGrants>) };
}

export function permits(held: Permission | null | undefined, needed: Permission): boolean {
  return held === 'read_write' || (held === 'read_only' && needed === 'read_only');
}
