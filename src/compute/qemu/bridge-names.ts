import { createHash } from 'node:crypto';

/**
 * The names bridge networking gives what it makes. Interface names hold at most 15 characters, so
 * they carry a short hash of what they stand for; the link's alias (`ip link`) says it in full.
 */

function short(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** The namespace an installation's bridge networking makes unless told (CUMULO_NODE_NETNS): its own, by its data dir. */
export function installationNetns(dataDir: string): string {
  return `cumulo-${short(dataDir)}`;
}

/** The installation's table in the host's nftables: what its nodes may reach of the host. */
export function hostTable(netns: string): string {
  return `cumulo_host_${short(netns)}`;
}

/** The namespace's end of the veth pair to the host. */
export const UPLINK = 'uplink';
/** Link-local addresses of the veth pair: routes on either side go through the other end's. */
export const HOST_LINK_ADDRESS = 'fe80::2';
export const NAMESPACE_LINK_ADDRESS = 'fe80::3';

/** The host's end of the veth pair into the namespace. */
export function hostVethName(netns: string): string {
  return `cv-${short(netns)}`;
}

export function regionBridgeName(region: string): string {
  return `br-${short(region)}`;
}

export function vlanBridgeName(region: string, vlan: string): string {
  return `vl-${short(`${region}\n${vlan}`)}`;
}

/** The taps of a machine start with this; `index` is the interface's position (eth0 is 0). */
export function tapPrefix(key: string): string {
  return `tp-${short(key)}-`;
}

export function tapName(key: string, index: number): string {
  return `${tapPrefix(key)}${index}`;
}

/** The machine's nftables tables in the namespace: `inet` (its firewall) and `bridge` (what its taps may send). */
export function machineTable(key: string): string {
  return `cumulo_${short(key)}`;
}

/**
 * A fixed, locally administered MAC for a bridge: without one a bridge takes the lowest MAC of its
 * ports, and the gateway's MAC would change under the guests as taps come and go.
 */
export function bridgeMac(name: string): string {
  const bytes = createHash('sha256').update(name).digest().subarray(0, 5);
  return ['02', ...[...bytes].map((b) => b.toString(16).padStart(2, '0'))].join(':');
}
