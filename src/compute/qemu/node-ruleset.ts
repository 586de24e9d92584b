/** One direction of a node's firewall: its rules in order, then its policy. */
export interface RulesetChain {
  rules: string[];
  policy: 'accept' | 'drop';
}

/** A node's firewall read from its rendered ruleset: what it lets in (input) and out (output). */
export interface NodeRuleset {
  inbound: RulesetChain;
  outbound: RulesetChain;
}

const HOOK_LINE = /^type filter hook (input|output) priority filter; policy (accept|drop);$/;

/**
 * Reads a node's ruleset as the firewalls group renders it: a `table inet` with an `input` and an
 * `output` base chain, each a hook line and one rule a line, written as if loaded on the node. The
 * rule lines are taken as they are (they hold no brace outside a set and no line break); anything
 * else is refused, so a ruleset of another shape is never loaded half understood.
 */
export function parseNodeRuleset(text: string): NodeRuleset {
  const chains = new Map<string, RulesetChain>();
  const lines = text.split('\n').map((line) => line.trim());
  let table: 'before' | 'open' | 'closed' = 'before';
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    if (line === '' || line.startsWith('#')) continue;
    if (/^(delete )?table inet [A-Za-z0-9_]+$/.test(line)) continue;
    if (/^table inet [A-Za-z0-9_]+ \{$/.test(line) && table === 'before') {
      table = 'open';
      continue;
    }
    const chain = /^chain (input|output) \{$/.exec(line);
    if (table === 'open' && chain && !chains.has(chain[1] as string)) {
      const hook = HOOK_LINE.exec(lines[i + 1] ?? '');
      if (!hook || hook[1] !== chain[1]) throw new Error(`ruleset line ${i + 2}: expected the ${chain[1]} chain's hook line`);
      const rules: string[] = [];
      for (i += 2; i < lines.length && lines[i] !== '}'; i += 1) if (lines[i] !== '') rules.push(lines[i] as string);
      if (i === lines.length) throw new Error(`ruleset: the ${chain[1]} chain does not end`);
      chains.set(chain[1] as string, { rules, policy: hook[2] as 'accept' | 'drop' });
      continue;
    }
    if (line === '}' && table === 'open' && chains.size === 2) {
      table = 'closed';
      continue;
    }
    throw new Error(`ruleset line ${i + 1} is not part of a node ruleset: ${JSON.stringify(line)}`);
  }
  const inbound = chains.get('input');
  const outbound = chains.get('output');
  if (!inbound || !outbound || table !== 'closed')
    throw new Error('ruleset: expected one table inet with an input and an output chain');
  return { inbound, outbound };
}
