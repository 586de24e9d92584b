import { parseAddress } from '../../net/cidr.ts';
import type { NodeRuleset } from './node-ruleset.ts';

/**
 * The nftables tables of a machine in the bridge namespace, named `machineTable(key)` in two families.
 *
 * Each machine has a number (`id`, 1..65535, unique in the namespace) that its taps write into the
 * packets they carry (`meta mark`): its low half on what a tap of the machine sent (bridge
 * prerouting), its high half on what the bridge forwards to one (bridge forward, per port, so each
 * copy of a broadcast or multicast has its own). The kernel here has no connection tracking in the
 * bridge family, so the namespace passes bridged IP through the `inet` hooks
 * (bridge-nf-call-iptables), where the marks tell whose traffic it is.
 *
 * `inet`: its firewall. What the machine sent jumps to `outbound` (forward and input hooks); what is
 * bridged to it jumps to `inbound`, and so does what is routed to one of its public addresses (routed
 * packets meet no bridge port before the `inet` hooks) or sent to one by the namespace (output).
 * `inbound` and `outbound` hold the node's rendered rules, its policy last; empty, they pass all.
 *
 * `bridge`: what each tap may send, whatever its firewall. Every tap: frames from its own MAC only.
 * A public tap besides: IP from the machine's addresses only (IPv6 from its own link-local address
 * or unspecified too), ARP for them, neighbour advertisements for them only, no router
 * advertisement, redirect or DHCP server reply, nothing else. It also counts the machine's public
 * traffic by family (`TRAFFIC_COUNTERS`): what its taps sent that passed those checks, and what went
 * out of the bridge to them (after the firewall), the local part apart: to or from its IPv4
 * addresses that are not routed beyond the bridge (`local4`), and IPv6 link-local or multicast.
 */

/** The named counters of a machine's bridge table: bytes in (to the machine) and out, by family, routed or local. */
export const TRAFFIC_COUNTERS = ['in4', 'out4', 'in4_local', 'out4_local', 'in6', 'out6', 'in6_local', 'out6_local'] as const;
export type TrafficCounter = (typeof TRAFFIC_COUNTERS)[number];

/** Machine numbers fit the half of a packet mark. */
export const MAX_MACHINE_ID = 0xffff;

const LINK_SCOPE6 = '{ fe80::/10, ff00::/8 }';

export interface MachineAddressSets {
  ipv4: readonly string[];
  ipv6: readonly string[];
}

/** A tap of the machine: `public` on its region's bridge, `vlan` on a VLAN's. */
export interface MachinePort {
  tap: string;
  mac: string;
  purpose: 'public' | 'vlan';
}

export interface MachineTables {
  id: number;
  ports: readonly MachinePort[];
  /** Every address the machine holds on its public interfaces (its link-local ones included). */
  addresses: MachineAddressSets;
  /** Its IPv4 addresses not routed beyond the bridge (their traffic is local). */
  localIpv4: readonly string[];
}

function set(name: string, type: string, elements: readonly string[]): string {
  return elements.length === 0
    ? `\tset ${name} { type ${type}; }`
    : `\tset ${name} { type ${type}; elements = { ${elements.join(', ')} }; }`;
}

function baseChain(hook: string, rules: readonly string[]): string[] {
  return [
    `\tchain ${hook} {`,
    `\t\ttype filter hook ${hook} priority filter; policy accept;`,
    ...rules.map((r) => `\t\t${r}`),
    '\t}',
  ];
}

function chain(name: string, rules: readonly string[]): string[] {
  return [`\tchain ${name} {`, ...rules.map((r) => `\t\t${r}`), '\t}'];
}

const hex = (value: number) => `0x${value.toString(16).padStart(8, '0')}`;
const SENT_BY = 0x0000ffff;
const BRIDGED_TO = 0xffff0000;

/** An IPv6 address as the 128-bit number a raw payload match compares (nft has no typed ND target here). */
function ipv6Number(address: string): string {
  const parsed = parseAddress(address);
  if (parsed?.version !== 6) throw new Error(`not an IPv6 address: ${address}`);
  return `0x${parsed.value.toString(16).padStart(32, '0')}`;
}

/** What a public tap may send: its MAC, the machine's addresses, no network service of the host's role. */
function publicSent(mac: string, ipv6: readonly string[]): string[] {
  // The ND target sits after the ICMPv6 header's 8 bytes.
  const targets =
    ipv6.length === 0 ? [] : [`icmpv6 type nd-neighbor-advert @th,64,128 != { ${ipv6.map(ipv6Number).join(', ')} } drop`];
  return [
    `ether saddr != ${mac} drop`,
    'ether type != { ip, ip6, arp } drop',
    `arp saddr ether != ${mac} drop`,
    'arp saddr ip != @ipv4 arp saddr ip != 0.0.0.0 drop',
    'ip saddr != @ipv4 drop',
    'udp sport { 67, 547 } drop',
    'ip6 saddr != @ipv6 ip6 saddr != :: drop',
    'icmpv6 type { nd-router-advert, nd-redirect } drop',
    ...(ipv6.length === 0 ? ['icmpv6 type nd-neighbor-advert drop'] : targets),
    'ip saddr @local4 counter name "out4_local" return',
    `ip6 saddr ${LINK_SCOPE6} counter name "out6_local" return`,
    `ip6 daddr ${LINK_SCOPE6} counter name "out6_local" return`,
    'ether type ip counter name "out4"',
    'ether type ip6 counter name "out6"',
  ];
}

/**
 * Makes the machine's tables, or brings them up to date: the address sets, the marks and the
 * dispatching base chains are written again, the `inbound` and `outbound` chains (its firewall) are
 * left as they are.
 */
export function machineTablesText(table: string, machine: MachineTables): string {
  const { id, ports, addresses } = machine;
  if (!Number.isInteger(id) || id < 1 || id > MAX_MACHINE_ID) throw new Error(`machine number out of range: ${id}`);
  const sentBy = `meta mark & ${hex(SENT_BY)} == ${hex(id)}`;
  const bridgedTo = `meta mark & ${hex(BRIDGED_TO)} == ${hex((id << 16) >>> 0)}`;
  const routed = `meta mark & ${hex(BRIDGED_TO)} == 0`;
  const publicTaps = ports.filter((p) => p.purpose === 'public').map((p) => `"${p.tap}"`);
  return [
    `table inet ${table} {`,
    set('ipv4', 'ipv4_addr', []),
    set('ipv6', 'ipv6_addr', []),
    '\tchain inbound {',
    '\t}',
    '\tchain outbound {',
    '\t}',
    ...baseChain('forward', []),
    ...baseChain('input', []),
    ...baseChain('output', []),
    '}',
    ...['ipv4', 'ipv6'].map((name) => `flush set inet ${table} ${name}`),
    ...['forward', 'input', 'output'].map((name) => `flush chain inet ${table} ${name}`),
    `table inet ${table} {`,
    set('ipv4', 'ipv4_addr', addresses.ipv4),
    set('ipv6', 'ipv6_addr', addresses.ipv6),
    ...baseChain('forward', [
      `${sentBy} jump outbound`,
      `${bridgedTo} jump inbound`,
      `${routed} ip daddr @ipv4 jump inbound`,
      `${routed} ip6 daddr @ipv6 jump inbound`,
    ]),
    ...baseChain('input', [`${sentBy} jump outbound`]),
    ...baseChain('output', ['ip daddr @ipv4 jump inbound', 'ip6 daddr @ipv6 jump inbound']),
    '}',
    `table bridge ${table}`,
    `delete table bridge ${table}`,
    `table bridge ${table} {`,
    set('id', 'mark', [hex(id)]),
    set('ipv4', 'ipv4_addr', addresses.ipv4),
    set('ipv6', 'ipv6_addr', addresses.ipv6),
    set('local4', 'ipv4_addr', machine.localIpv4),
    ...TRAFFIC_COUNTERS.flatMap((name) => [`\tcounter ${name} {`, '\t}']),
    ...baseChain(
      'prerouting',
      ports.flatMap((port, index) => [
        `iifname "${port.tap}" meta mark set meta mark & ${hex(BRIDGED_TO)} | ${hex(id)} jump sent${index}`,
      ]),
    ),
    ...ports.flatMap((port, index) =>
      chain(
        `sent${index}`,
        port.purpose === 'public' ? publicSent(port.mac, addresses.ipv6) : [`ether saddr != ${port.mac} drop`],
      ),
    ),
    ...baseChain(
      'forward',
      ports.map((port) => `oifname "${port.tap}" meta mark set meta mark & ${hex(SENT_BY)} | ${hex((id << 16) >>> 0)}`),
    ),
    ...baseChain('postrouting', publicTaps.length === 0 ? [] : [`oifname { ${publicTaps.join(', ')} } jump received`]),
    ...chain('received', [
      'ip daddr @local4 counter name "in4_local" return',
      `ip6 daddr ${LINK_SCOPE6} counter name "in6_local" return`,
      `ip6 saddr ${LINK_SCOPE6} counter name "in6_local" return`,
      'ether type ip counter name "in4"',
      'ether type ip6 counter name "in6"',
    ]),
    '}',
    '',
  ].join('\n');
}

/** Removes the machine's tables; tables already gone are not an error. */
export function dropMachineTablesText(table: string): string {
  return [`table inet ${table}`, `delete table inet ${table}`, `table bridge ${table}`, `delete table bridge ${table}`, ''].join(
    '\n',
  );
}

/** Replaces the machine's firewall (null: none, everything passes), in one transaction. */
export function firewallText(table: string, ruleset: NodeRuleset | null): string {
  const flush = [`flush chain inet ${table} inbound`, `flush chain inet ${table} outbound`];
  if (ruleset === null) return [...flush, ''].join('\n');
  return [
    ...flush,
    `table inet ${table} {`,
    ...chain('inbound', [...ruleset.inbound.rules, ruleset.inbound.policy]),
    ...chain('outbound', [...ruleset.outbound.rules, ruleset.outbound.policy]),
    '}',
    '',
  ].join('\n');
}
