/** The areas of the API a token's scopes name, as the API spells them, with what the console calls them. */
export const SCOPE_AREAS = [
  ['account', 'Account'],
  ['domains', 'Domains'],
  ['events', 'Events'],
  ['firewall', 'Firewalls'],
  ['images', 'Images'],
  ['ips', 'IP addresses'],
  ['lke', 'Kubernetes'],
  ['longview', 'Longview'],
  ['maintenance', 'Maintenance'],
  ['nodebalancers', 'NodeBalancers'],
  ['nodes', 'Nodes'],
  ['object_storage', 'Object Storage'],
  ['stackscripts', 'StackScripts'],
  ['volumes', 'Volumes'],
] as const;

export type ScopeArea = (typeof SCOPE_AREAS)[number][0];
export type Level = '' | 'read_only' | 'read_write';
export type ScopeChoice = { all: true } | { all: false; levels: Partial<Record<ScopeArea, Level>> };

/** The API's scopes text for a choice: `*`, or `area:level` items; empty when nothing is chosen. */
export function scopesText(choice: ScopeChoice): string {
  if (choice.all) return '*';
  return SCOPE_AREAS.flatMap(([area]) => (choice.levels[area] ? [`${area}:${choice.levels[area]}`] : [])).join(' ');
}

const LEVEL_WORDS: Record<string, string> = { read_only: 'read only', read_write: 'read write' };

/** A token's or app's scopes as a person reads them: "All areas", or "Domains: read only, Nodes: read write". */
export function scopesWords(scopes: string): string {
  if (scopes.trim() === '*') return 'All areas';
  const names = new Map<string, string>(SCOPE_AREAS);
  return scopes
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((item) => {
      const [area = '', level = ''] = item.split(':');
      return `${names.get(area) ?? area}: ${LEVEL_WORDS[level] ?? level}`;
    })
    .join(', ');
}
