import { type ErrorItem, fail } from '../../errors.ts';
import { parseAddress, parseCidr } from '../../net/cidr.ts';
import { MAX_RULE_ADDRESSES, MAX_RULES, type Rule } from './firewall.schema.ts';

const MAX_PORT = 65535;
const MAX_PORT_PIECES = 15;
/** A port without leading zeros; its range is checked after. */
const PORT = '[1-9][0-9]{0,4}';
const PIECE = `${PORT}(?:-${PORT})?`;
const PORTS = new RegExp(`^${PIECE}(?:, ?${PIECE})*$`);

/** Why a ports string is refused, or undefined when it is a valid one. */
export function portsProblem(ports: string): string | undefined {
  const grammar = 'Must be a port, a range a-b or a comma-separated list of them, ports 1-65535 without leading zeros';
  if (!PORTS.test(ports)) return grammar;
  let pieces = 0;
  for (const piece of ports.split(',')) {
    const [from, to] = piece.trim().split('-').map(Number) as [number, number | undefined];
    if (from > MAX_PORT || (to !== undefined && to > MAX_PORT)) return grammar;
    if (to !== undefined && to <= from) return `In the range ${piece.trim()} the end must be greater than the start`;
    pieces += to === undefined ? 1 : 2;
  }
  if (pieces > MAX_PORT_PIECES) return `Must have at most ${MAX_PORT_PIECES} pieces (a range counts as two)`;
  return undefined;
}

/** An address or network of the given version: `192.0.2.1`, `192.0.2.0/24`, `2001:db8::/32`. */
function isAddressOrNetwork(text: string, version: 4 | 6): boolean {
  const block = text.includes('/') ? parseCidr(text) : parseAddress(text);
  return block?.version === version;
}

function ruleProblems(rule: Rule, field: string): ErrorItem[] {
  const problems: ErrorItem[] = [];
  if (rule.protocol === 'ICMP') {
    if (rule.ports !== undefined) problems.push({ field: `${field}.ports`, reason: 'Ports may not be given for ICMP' });
  } else if (rule.ports === undefined || rule.ports === '') {
    problems.push({ field: `${field}.ports`, reason: `At least one port is required for ${rule.protocol}` });
  } else {
    const why = portsProblem(rule.ports);
    if (why) problems.push({ field: `${field}.ports`, reason: why });
  }
  const ipv4 = rule.addresses.ipv4 ?? [];
  const ipv6 = rule.addresses.ipv6 ?? [];
  if (ipv4.length + ipv6.length > MAX_RULE_ADDRESSES) {
    problems.push({
      field: `${field}.addresses`,
      reason: `A rule holds at most ${MAX_RULE_ADDRESSES} addresses or networks across ipv4 and ipv6`,
    });
  }
  for (const [version, list] of [
    [4, ipv4],
    [6, ipv6],
  ] as const) {
    for (const [i, text] of list.entries()) {
      if (!isAddressOrNetwork(text, version)) {
        problems.push({
          field: `${field}.addresses.ipv${version}[${i}]`,
          reason: `Must be an IPv${version} address or network (address/prefix, no host bits set)`,
        });
      }
    }
  }
  return problems;
}

/**
 * Checks rules beyond their schema: ports per protocol and their grammar, addresses, and the
 * number of rules across both directions. `base` is where the rule lists sit in the body
 * (`rules` on create, the top level on a rules PUT); every problem names its field.
 */
export function checkRules(rules: { inbound?: Rule[]; outbound?: Rule[] }, base: string | null): void {
  const at = (path: string) => (base ? `${base}.${path}` : path);
  const problems: ErrorItem[] = [];
  let count = 0;
  for (const direction of ['inbound', 'outbound'] as const) {
    for (const [i, rule] of (rules[direction] ?? []).entries()) {
      count += 1;
      if (count === MAX_RULES + 1) {
        problems.push({
          field: at(`${direction}[${i}]`),
          reason: `A firewall holds at most ${MAX_RULES} rules across inbound and outbound`,
        });
      }
      problems.push(...ruleProblems(rule, at(`${direction}[${i}]`)));
    }
  }
  if (problems.length > 0) throw fail.invalid(problems);
}
