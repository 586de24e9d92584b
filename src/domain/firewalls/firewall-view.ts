import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import { tagsOf } from '../tags/tag.service.ts';
import type { FirewallRow } from './firewall.repository.ts';
import type { DeviceEntityT, Firewall, Rule, Ruleset, RulesView } from './firewall.schema.ts';
import { findEntitiesOfFirewalls } from './firewall-device.repository.ts';

export function rulesOf(row: Pick<FirewallRow, 'rules'>): Ruleset {
  return JSON.parse(row.rules) as Ruleset;
}

/** A rule as shown: both address families, an empty list for one it does not name. */
function ruleView(rule: Rule): Rule {
  return { ...rule, addresses: { ipv4: rule.addresses.ipv4 ?? [], ipv6: rule.addresses.ipv6 ?? [] } };
}

/**
 * A firewall's ruleset as shown, with its version (one more each rules update) and a fingerprint:
 * the first eight hex digits of a SHA-256 of the rules and policies, the same for the same ruleset.
 */
export function rulesView(row: Pick<FirewallRow, 'rules' | 'rules_version'>): RulesView {
  const rules = rulesOf(row);
  const shown: Ruleset = {
    inbound: rules.inbound.map(ruleView),
    outbound: rules.outbound.map(ruleView),
    inbound_policy: rules.inbound_policy,
    outbound_policy: rules.outbound_policy,
  };
  const fingerprint = createHash('sha256').update(JSON.stringify(shown)).digest('hex').slice(0, 8);
  return { ...shown, version: row.rules_version, fingerprint };
}

/** A node a firewall is assigned to, as a device and the firewall show it. */
export function deviceEntity(node: { node_id: number; node_label: string }): DeviceEntityT {
  return {
    id: node.node_id,
    type: 'node',
    label: node.node_label,
    url: `/v4/node/instances/${node.node_id}`,
    parent_entity: null,
  };
}

export function firewallRowToFirewall(row: FirewallRow, tags: string[], entities: DeviceEntityT[]): Firewall {
  return {
    id: row.id,
    label: row.label,
    created: row.created,
    updated: row.updated,
    status: row.status as Firewall['status'],
    rules: rulesView(row),
    tags,
    entities,
  };
}

/** API objects for firewalls of one account, with one query for their tags and one for what they are assigned to. */
export async function toFirewalls(db: Kysely<Database>, accountId: number, rows: readonly FirewallRow[]): Promise<Firewall[]> {
  const ids = rows.map((r) => r.id);
  const tags = await tagsOf(db, accountId, 'firewall', ids);
  const entities = new Map<number, DeviceEntityT[]>();
  for (const device of await findEntitiesOfFirewalls(db, accountId, ids)) {
    entities.set(device.firewall_id, [...(entities.get(device.firewall_id) ?? []), deviceEntity(device)]);
  }
  return rows.map((row) => firewallRowToFirewall(row, tags.get(row.id) ?? [], entities.get(row.id) ?? []));
}

export async function toFirewall(db: Kysely<Database>, row: FirewallRow): Promise<Firewall> {
  const [firewall] = await toFirewalls(db, row.account_id, [row]);
  if (!firewall) throw fail.internal();
  return firewall;
}
