/**
 * The installation's table in the host's own nftables (`hostTable(netns)`): what arrives from its
 * namespace's veth. Nodes reach the host only at the ports the operator lists, and answers to what
 * the host started (SSH, probes) pass; the veth link's own neighbour discovery passes, since the
 * namespace routes through it. Nothing is forwarded beyond the host unless NAT is on; then nodes'
 * IPv4 traffic leaves behind the host's addresses. Answers to what reached nodes through the host
 * (an operator routing to them) pass either way.
 */

export interface HostAccess {
  /** The host's end of the namespace's veth. */
  veth: string;
  /** `port/tcp` or `port/udp`. */
  ports: readonly string[];
  nat: boolean;
}

const ESTABLISHED = 'ct state established,related accept';

function portRules(ports: readonly string[]): string[] {
  const byProtocol = new Map<string, string[]>();
  for (const entry of ports) {
    const [port = '', protocol = 'tcp'] = entry.split('/');
    byProtocol.set(protocol, [...(byProtocol.get(protocol) ?? []), port]);
  }
  return [...byProtocol].map(([protocol, list]) => `${protocol} dport { ${[...new Set(list)].join(', ')} } accept`);
}

export function hostTableText(table: string, access: HostAccess): string {
  const veth = `"${access.veth}"`;
  return [
    `table inet ${table}`,
    `delete table inet ${table}`,
    `table inet ${table} {`,
    '\tchain input {',
    '\t\ttype filter hook input priority filter; policy accept;',
    `\t\tiifname ${veth} jump from_nodes`,
    '\t}',
    '\tchain from_nodes {',
    `\t\t${ESTABLISHED}`,
    '\t\tct state invalid drop',
    '\t\ticmpv6 type { nd-neighbor-solicit, nd-neighbor-advert } accept',
    ...portRules(access.ports).map((rule) => `\t\t${rule}`),
    '\t\tdrop',
    '\t}',
    '\tchain forward {',
    '\t\ttype filter hook forward priority filter; policy accept;',
    `\t\tiifname ${veth} jump forwarded`,
    '\t}',
    '\tchain forwarded {',
    `\t\t${ESTABLISHED}`,
    ...(access.nat ? [`\t\tmeta nfproto ipv4 oifname != ${veth} accept`] : []),
    '\t\tdrop',
    '\t}',
    ...(access.nat
      ? [
          '\tchain postrouting {',
          '\t\ttype nat hook postrouting priority srcnat; policy accept;',
          `\t\tmeta nfproto ipv4 iifname ${veth} oifname != ${veth} masquerade`,
          '\t}',
        ]
      : []),
    '}',
    '',
  ].join('\n');
}

/** Removes the table; a table already gone is not an error. */
export function dropHostTableText(table: string): string {
  return [`table inet ${table}`, `delete table inet ${table}`, ''].join('\n');
}
