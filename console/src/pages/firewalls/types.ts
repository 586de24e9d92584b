export type Direction = 'inbound' | 'outbound';
export type Policy = 'ACCEPT' | 'DROP';

export interface Rule {
  protocol: string;
  ports?: string;
  addresses: { ipv4?: string[]; ipv6?: string[] };
  action: Policy;
  label?: string;
  description?: string;
}

export interface Rules {
  inbound: Rule[];
  outbound: Rule[];
  inbound_policy: Policy;
  outbound_policy: Policy;
}

export interface Firewall {
  id: number;
  label: string;
  status: 'enabled' | 'disabled' | 'deleted';
  rules: Rules;
  tags: string[];
  created: string;
  updated: string;
}

export interface Device {
  id: number;
  created: string;
  entity: { id: number; label: string; type: string };
}

export interface NodeChoice {
  id: number;
  label: string;
}

/** The protocols a rule takes, as the API lists them. */
export const PROTOCOLS = ['TCP', 'UDP', 'ICMP'] as const;
export const POLICIES: Policy[] = ['ACCEPT', 'DROP'];

/** What a direction's addresses are to its rules. */
export const PEERS: Record<Direction, string> = { inbound: 'Sources', outbound: 'Destinations' };
