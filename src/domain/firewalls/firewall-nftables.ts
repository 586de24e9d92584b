import { fail } from '../../errors.ts';
import { type Block, formatAddress, parseAddress, parseCidr } from '../../net/cidr.ts';
import type { Rule, Ruleset } from './firewall.schema.ts';

/** The firewall in force on a node: its one enabled firewall. */
export interface EffectiveFirewall {
  id: number;
  label: string;
  rules: Ruleset;
}

type Direction = 'inbound' | 'outbound';

const CHAINS = { inbound: { name: 'input', iface: 'iif' }, outbound: { name: 'output', iface: 'oif' } } as const;
const FAMILIES = {
  4: { list: 'ipv4', match: 'ip', nfproto: 'ipv4' },
  6: { list: 'ipv6', match: 'ip6', nfproto: 'ipv6' },
} as const;
/** Without these IPv6 stops working at all, whatever the rules allow; a cloud firewall never filters them. */
const NEIGHBOUR_DISCOVERY = 'icmpv6 type { nd-router-solicit, nd-router-advert, nd-neighbor-solicit, nd-neighbor-advert } accept';

/**
 * Text safe inside an nft comment or `#` line: nft strings know no escapes, so a quote, a backslash,
 * a control character or anything beyond ASCII becomes `_` (all ASCII, a rule's comment stays well
 * within nft's 128 bytes).
 */
function safeText(text: string): string {
  return text.replace(/[^\x20-\x7e]|["\\]/g, '_');
}

function elements(items: readonly string[]): string {
  return items.length === 1 ? (items[0] as string) : `{ ${items.join(', ')} }`;
}

/** A ports string (`22, 80-90`) as sorted pieces with overlapping and adjacent ones joined. */
function portPieces(ports: string): string[] {
  const ranges = ports
    .split(',')
    .map((piece) => {
      const [from, to] = piece.trim().split('-').map(Number) as [number, number | undefined];
      return [from, to ?? from] as [number, number];
    })
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const [from, to] of ranges) {
    const last = merged.at(-1);
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`));
}

function blockOf(text: string): Block {
  if (text.includes('/')) {
    const block = parseCidr(text);
    if (block) return block;
  } else {
    const address = parseAddress(text);
    if (address) {
      const bits = address.version === 4 ? 32 : 128;
      return { version: address.version, first: address.value, prefix: bits, size: 1n };
    }
  }
  // Stored rules passed checkRules (firewall-rules.ts).
  throw fail.internal();
}

/**
 * A rule's addresses of one family in canonical text, sorted, without duplicates or blocks inside
 * another one; null for any address of the family (`0.0.0.0/0`, `::/0`).
 */
function addressElements(list: readonly string[]): string[] | null {
  const blocks = list.map(blockOf).sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : b.prefix - a.prefix));
  const kept: Block[] = [];
  for (const block of blocks) {
    if (block.prefix === 0) return null;
    const last = kept.at(-1);
    if (last && block.first < last.first + last.size) continue;
    kept.push(block);
  }
  return kept.map((b) => {
    const address = formatAddress(b.version, b.first);
    return b.size === 1n ? address : `${address}/${b.prefix}`;
  });
}

function protocolMatch(rule: Rule, version: 4 | 6): string {
  if (rule.protocol === 'ICMP') return version === 4 ? 'ip protocol icmp' : 'meta l4proto ipv6-icmp';
  const l4 = rule.protocol.toLowerCase();
  return rule.ports ? `${l4} dport ${elements(portPieces(rule.ports))}` : `meta l4proto ${l4}`;
}

/** One nft rule per address family the rule names addresses of. */
function ruleLines(rule: Rule, direction: Direction, index: number, firewallId: number): string[] {
  const lines: string[] = [];
  const label = rule.label === undefined ? '' : ` ${safeText(rule.label)}`;
  const comment = `firewall ${firewallId} ${direction}[${index}]${label}`;
  for (const version of [4, 6] as const) {
    const family = FAMILIES[version];
    const list = rule.addresses[family.list] ?? [];
    if (list.length === 0) continue;
    const addresses = addressElements(list);
    const side = direction === 'inbound' ? 'saddr' : 'daddr';
    const match = addresses ? `${family.match} ${side} ${elements(addresses)}` : `meta nfproto ${family.nfproto}`;
    lines.push(`${match} ${protocolMatch(rule, version)} ${rule.action.toLowerCase()} comment "${comment}"`);
  }
  return lines;
}

function chain(direction: Direction, firewall: EffectiveFirewall | null): string[] {
  const { name, iface } = CHAINS[direction];
  const policy = firewall ? firewall.rules[`${direction}_policy`].toLowerCase() : 'accept';
  const body = firewall
    ? [
        'ct state established,related accept',
        'ct state invalid drop',
        `${iface} "lo" accept`,
        NEIGHBOUR_DISCOVERY,
        ...firewall.rules[direction].flatMap((rule, i) => ruleLines(rule, direction, i, firewall.id)),
      ]
    : [];
  return [
    `\tchain ${name} {`,
    `\t\ttype filter hook ${name} priority filter; policy ${policy};`,
    ...body.map((l) => `\t\t${l}`),
    '\t}',
  ];
}

/**
 * The nftables ruleset of a node's effective firewall (null: none), one `table inet` of its own that
 * loading replaces whole (`nft -f`). The filter is stateful, as cloud firewalls are: replies to
 * allowed traffic (established, related) pass before any rule and invalid packets are dropped;
 * loopback and IPv6 neighbour discovery always pass. Then the rules in their order (inbound on the
 * input hook matching sources, outbound on the output hook matching destinations; one nft rule per
 * address family a rule names), then the policy. Without a firewall both chains accept everything.
 * Rule descriptions are left out (free text); labels go into comments made safe.
 */
export function renderNftables(node: { id: number; label: string }, firewall: EffectiveFirewall | null): string {
  const table = `inet cumulo_node_${node.id}`;
  const about = firewall
    ? [
        `# Cumulo node ${node.id} (${safeText(node.label)}): firewall ${firewall.id} (${safeText(firewall.label)}).`,
        '# Stateful: established and related traffic passes, invalid packets are dropped, loopback and',
        '# IPv6 neighbour discovery pass; then the rules in order, then the policy.',
      ]
    : [`# Cumulo node ${node.id} (${safeText(node.label)}): no enabled firewall, every packet is accepted.`];
  return [
    ...about,
    // Declaring the table before deleting it lets a load replace an earlier copy, or none.
    `table ${table}`,
    `delete table ${table}`,
    `table ${table} {`,
    ...chain('inbound', firewall),
    ...chain('outbound', firewall),
    '}',
    '',
  ].join('\n');
}
