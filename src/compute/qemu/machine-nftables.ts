import type { NodeRuleset, RulesetChain } from './node-ruleset.ts';

/**
 * The nftables tables of a machine in the bridge namespace, named `machineTable(key)` in two families.
 *
 * `inet`: its firewall. The kernel here has no connection tracking in the bridge family, so the
 * namespace passes bridged IP through the `inet` hooks (bridge-nf-call-iptables) and the
 * machine's traffic is told by its addresses: to one of them is inbound, from one of them outbound,
 * on the forward hook (routed from the host, or bridged between guests) and on the namespace's own
 * input and output. Those base chains jump to `inbound` and `outbound`, which hold the node's
 * rendered rules, its policy last; empty, they let everything through.
 *
 * `bridge`: what the machine's public taps may send, whatever its firewall: IP from its own
 * addresses (and IPv6 link-local or unspecified), ARP for them, no router advertisement, nothing
 * else. Without it a guest could send from another's address past both firewalls. It also counts
 * the machine's traffic by family (`TRAFFIC_COUNTERS`): what its taps sent that passed those checks,
 * and what went out of the bridge to them (after the firewall), the local part apart: to or from its
 * IPv4 addresses that are not routed beyond the bridge (`local4`), and IPv6 link-local or multicast.
 */

/** The named counters of a machine's bridge table: bytes in (to the machine) and out, by family, routed or local. */
export const TRAFFIC_COUNTERS = ['in4', 'out4', 'in4_local', 'out4_local', 'in6', 'out6', 'in6_local', 'out6_local'] as const;
export type TrafficCounter = (typeof TRAFFIC_COUNTERS)[number];

const LINK_SCOPE6 = '{ fe80::/10, ff00::/8 }';

export interface MachineAddressSets {
  ipv4: readonly string[];
  ipv6: readonly string[];
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

const TO_MACHINE = ['ip daddr @ipv4 jump inbound', 'ip6 daddr @ipv6 jump inbound'];
const FROM_MACHINE = ['ip saddr @ipv4 jump outbound', 'ip6 saddr @ipv6 jump outbound'];

/**
 * Makes the machine's tables, or brings them up to date: the address sets and the dispatching base
 * chains are written again, the `inbound` and `outbound` chains (its firewall) are left as they are.
 */
export function machineTablesText(
  table: string,
  publicTaps: readonly string[],
  addresses: MachineAddressSets,
  localIpv4: readonly string[] = [],
): string {
  const taps = publicTaps.map((tap) => `"${tap}"`).join(', ');
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
    ...baseChain('forward', [...TO_MACHINE, ...FROM_MACHINE]),
    ...baseChain('input', FROM_MACHINE),
    ...baseChain('output', TO_MACHINE),
    '}',
    `table bridge ${table}`,
    `delete table bridge ${table}`,
    `table bridge ${table} {`,
    set('ipv4', 'ipv4_addr', addresses.ipv4),
    set('ipv6', 'ipv6_addr', addresses.ipv6),
    set('local4', 'ipv4_addr', localIpv4),
    ...TRAFFIC_COUNTERS.flatMap((name) => [`\tcounter ${name} {`, '\t}']),
    ...baseChain('prerouting', taps === '' ? [] : [`iifname { ${taps} } jump sent`]),
    '\tchain sent {',
    '\t\tether type != { ip, ip6, arp } drop',
    '\t\tarp saddr ip != @ipv4 arp saddr ip != 0.0.0.0 drop',
    '\t\tip saddr != @ipv4 drop',
    '\t\tip6 saddr != @ipv6 ip6 saddr != { ::, fe80::/10 } drop',
    '\t\ticmpv6 type nd-router-advert drop',
    '\t\tip saddr @local4 counter name "out4_local" return',
    `\t\tip6 saddr ${LINK_SCOPE6} counter name "out6_local" return`,
    `\t\tip6 daddr ${LINK_SCOPE6} counter name "out6_local" return`,
    '\t\tether type ip counter name "out4"',
    '\t\tether type ip6 counter name "out6"',
    '\t}',
    ...baseChain('postrouting', taps === '' ? [] : [`oifname { ${taps} } jump received`]),
    '\tchain received {',
    '\t\tip daddr @local4 counter name "in4_local" return',
    `\t\tip6 daddr ${LINK_SCOPE6} counter name "in6_local" return`,
    `\t\tip6 saddr ${LINK_SCOPE6} counter name "in6_local" return`,
    '\t\tether type ip counter name "in4"',
    '\t\tether type ip6 counter name "in6"',
    '\t}',
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

function chainBody(name: string, chain: RulesetChain): string[] {
  return [`\tchain ${name} {`, ...chain.rules.map((r) => `\t\t${r}`), `\t\t${chain.policy}`, '\t}'];
}

/** Replaces the machine's firewall (null: none, everything passes), in one transaction. */
export function firewallText(table: string, ruleset: NodeRuleset | null): string {
  const flush = [`flush chain inet ${table} inbound`, `flush chain inet ${table} outbound`];
  if (ruleset === null) return [...flush, ''].join('\n');
  return [
    ...flush,
    `table inet ${table} {`,
    ...chainBody('inbound', ruleset.inbound),
    ...chainBody('outbound', ruleset.outbound),
    '}',
    '',
  ].join('\n');
}
