import { getAll } from '../../api.ts';

export interface Node {
  id: number;
  label: string;
  status: string;
  region: string;
  type: string;
  image: string | null;
  ipv4: string[];
  ipv6: string | null;
  tags: string[];
  created: string;
  specs: { disk: number; memory: number; vcpus: number; transfer: number };
  backups: { enabled: boolean; last_successful: string | null };
}

export interface Region {
  id: string;
  label: string;
  country: string;
  status: string;
}

/** A region as a choice names it: its id, where it is, and its status when it is not ok. */
export function regionText(r: Region): string {
  return `${r.id} (${r.label}, ${r.country.toUpperCase()})${r.status === 'ok' ? '' : `: ${r.status}`}`;
}

export interface NodeType {
  id: string;
  label: string;
  vcpus: number;
  memory: number;
  disk: number;
  transfer: number;
  price: { monthly: number; hourly: number };
  addons: { backups: { price: { monthly: number; hourly: number } } };
}

export interface Image {
  id: string;
  label: string;
  is_public: boolean;
  deprecated: boolean;
  status: string;
  size: number;
}

export interface SshKey {
  id: number;
  label: string;
  ssh_key: string;
}

export interface UserDefinedField {
  label: string;
  name: string;
  example: string;
  oneof?: string;
  manyof?: string;
  default?: string;
}

export interface StackScript {
  id: number;
  label: string;
  username: string;
  images: string[];
  is_public: boolean;
  mine: boolean;
  user_defined_fields: UserDefinedField[];
}

export interface Firewall {
  id: number;
  label: string;
}

export const loadRegions = () => getAll<Region>('/regions');
export const loadTypes = () => getAll<NodeType>('/node/types');

/** Megabytes as people read them: 1024 MB is 1 GB. */
export function megabytes(mb: number): string {
  return mb >= 1024 ? `${Number((mb / 1024).toFixed(1))} GB` : `${mb} MB`;
}

/** A type's specs and price on one line, as a plan is chosen. */
export function planText(t: NodeType): string {
  const cpus = `${t.vcpus} vCPU${t.vcpus === 1 ? '' : 's'}`;
  return `${t.label}: ${cpus}, ${megabytes(t.memory)} memory, ${megabytes(t.disk)} disk, ${t.transfer / 1000} TB transfer, ${price(t)}`;
}

export function price(t: NodeType): string {
  return `$${t.price.monthly.toFixed(2)}/month ($${t.price.hourly}/hour)`;
}

/** Powered off: it may be booted, and its root password reset. */
export function poweredOff(status: string): boolean {
  return status === 'offline' || status === 'stopped';
}

/** Nothing is under way: operations that need a settled node may start. */
export function settled(status: string): boolean {
  return status === 'running' || poweredOff(status);
}
