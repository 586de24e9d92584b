import net from 'node:net';
import os from 'node:os';
import { type Cidr, normaliseIp, parseRange } from './ip-address.ts';

/*
 * The one egress policy: whether the service may open a connection to an address for a tenant
 * (managed service probes, DNS SOA checks, transfers and NOTIFY). In order:
 * 1. the service's own listening addresses (HTTP, DNS) on their ports are always refused;
 * 2. the operator's CUMULO_EGRESS_DENY refuses, whatever else says;
 * 3. the operator's CUMULO_EGRESS_ALLOW allows, over the default refusals below;
 * 4. loopback, unspecified, link-local (cloud metadata addresses too), multicast, broadcast and
 *    reserved ranges are refused;
 * 5. private ranges (RFC 1918, CGNAT 100.64/10, ULA fc00::/7) are refused unless the address is one
 *    the caller vouches for (Cumulo gave it to one of the account's nodes);
 * 6. anything else (public addresses, the documentation ranges, which nothing routes) is allowed.
 */

export type EgressRefusal =
  | 'own-listener'
  | 'denied'
  | 'metadata'
  | 'unspecified'
  | 'broadcast'
  | 'loopback'
  | 'link-local'
  | 'multicast'
  | 'private'
  | 'reserved'
  | 'not-an-address';

const REFUSAL_TEXT: Record<EgressRefusal, string> = {
  'own-listener': 'an address this service listens on',
  denied: 'in a range the operator denies',
  metadata: 'a cloud metadata address',
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  loopback: 'a loopback address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address',
  private: 'a private address that is not one of the account’s nodes',
  reserved: 'in a reserved range',
  'not-an-address': 'not an IP address',
};

/** The default refusals, most specific first: an address takes the first kind whose ranges hold it. */
type DefaultRefusal = Exclude<EgressRefusal, 'own-listener' | 'denied' | 'not-an-address'>;
const DEFAULT_RANGES: readonly (readonly [DefaultRefusal, readonly string[]])[] = [
  ['metadata', ['169.254.169.254/32', 'fd00:ec2::254/128']],
  ['unspecified', ['0.0.0.0/32', '::/128']],
  ['broadcast', ['255.255.255.255/32']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', 'fc00::/7']],
  [
    'reserved',
    [
      '0.0.0.0/8', // "this network": 0.x reaches the local host on Linux
      '192.0.0.0/24', // IETF protocol assignments (DS-Lite, NAT64 discovery)
      '192.88.99.0/24', // 6to4 relays
      '198.18.0.0/15', // benchmarking
      '240.0.0.0/4',
      '100::/64', // discard-only
      '64:ff9b:1::/48', // local-use NAT64
      '2001::/23', // IETF protocol assignments (Teredo, benchmarking, ORCHID)
      '2002::/16', // 6to4
      'fec0::/10', // site-local
    ],
  ],
];

function blockListOf(cidrs: readonly Cidr[]): net.BlockList {
  const list = new net.BlockList();
  for (const c of cidrs) list.addSubnet(c.address, c.prefix, c.family);
  return list;
}

function cidrsOf(texts: readonly string[]): Cidr[] {
  return texts.map((text) => {
    const cidr = parseRange(text);
    if (!cidr) throw new Error(`not a CIDR range: ${text}`);
    return cidr;
  });
}

const DEFAULTS = DEFAULT_RANGES.map(([kind, ranges]) => [kind, blockListOf(cidrsOf(ranges))] as const);

const familyOf = (ip: string) => (net.isIPv4(ip) ? 'ipv4' : 'ipv6');
const inList = (list: net.BlockList, ip: string) => list.check(ip, familyOf(ip));
const isUnspecified = (ip: string) => ip === '0.0.0.0' || ip === '::';

/** Whether a normalised address is the local host's: loopback, unspecified, or one of its interfaces'. */
function isLocalHost(ip: string): boolean {
  if (isUnspecified(ip) || ip.startsWith('127.') || ip === '::1') return true;
  return Object.values(os.networkInterfaces()).some((addresses) => (addresses ?? []).some((a) => normaliseIp(a.address) === ip));
}

/** Says whether an address is one the caller vouches for (the account's own nodes'); asked only for private ones. */
export type OwnAddressCheck = (ip: string) => Promise<boolean>;

/** The reason a refusal gives a tenant: what the address is, not how the operator configured it. */
export function egressRefusalText(ip: string, refusal: EgressRefusal): string {
  return `${ip} is ${REFUSAL_TEXT[refusal]}`;
}

export class EgressPolicy {
  readonly #allow: net.BlockList;
  readonly #deny: net.BlockList;
  /** Port → the addresses this service listens on there (`0.0.0.0` / `::`: every local address). */
  readonly #listeners = new Map<number, Set<string>>();

  /** `allow` and `deny` are CIDR ranges (config.ts has checked them). */
  constructor(ranges: { allow?: readonly string[]; deny?: readonly string[] }) {
    this.#allow = blockListOf(cidrsOf(ranges.allow ?? []));
    this.#deny = blockListOf(cidrsOf(ranges.deny ?? []));
  }

  /** Names an address this service listens on (HTTP, DNS): connections to it are always refused. */
  addOwnListener(host: string, port: number): void {
    const ip = normaliseIp(host);
    if (ip === null || port === 0) return;
    const at = this.#listeners.get(port) ?? new Set<string>();
    at.add(ip);
    this.#listeners.set(port, at);
  }

  #isOwnListener(ip: string, port: number): boolean {
    const at = this.#listeners.get(port);
    if (!at) return false;
    return [...at].some((own) => own === ip || (isUnspecified(own) ? isLocalHost(ip) : isUnspecified(ip)));
  }

  /**
   * Why a connection to `address` (any spelling) on `port` is refused, or null when it is allowed.
   * `isOwn` is asked only for a private address that nothing else has settled.
   */
  async refusal(address: string, port: number, isOwn?: OwnAddressCheck): Promise<EgressRefusal | null> {
    const ip = normaliseIp(address);
    if (ip === null) return 'not-an-address';
    if (this.#isOwnListener(ip, port)) return 'own-listener';
    if (inList(this.#deny, ip)) return 'denied';
    if (inList(this.#allow, ip)) return null;
    const kind = DEFAULTS.find(([, list]) => inList(list, ip))?.[0];
    if (kind === undefined) return null;
    if (kind === 'private' && isOwn && (await isOwn(ip))) return null;
    return kind;
  }
}
