import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import { tagsOf } from '../tags/tag.service.ts';
import type { FirewallRow } from './firewall.repository.ts';
import type { Firewall, Ruleset } from './firewall.schema.ts';

export function rulesOf(row: Pick<FirewallRow, 'rules'>): Ruleset {
  return JSON.parse(row.rules) as Ruleset;
}

export function firewallRowToFirewall(row: FirewallRow, tags: string[]): Firewall {
  return {
    id: row.id,
    label: row.label,
    created: row.created,
    updated: row.updated,
    status: row.status as Firewall['status'],
    rules: rulesOf(row),
    tags,
  };
}

/** API objects for firewalls of one account, with one query for their tags. */
export async function toFirewalls(db: Kysely<Database>, accountId: number, rows: readonly FirewallRow[]): Promise<Firewall[]> {
  const ids = rows.map((r) => r.id);
  const tags = await tagsOf(db, accountId, 'firewall', ids);
  return rows.map((row) => firewallRowToFirewall(row, tags.get(row.id) ?? []));
}

export async function toFirewall(db: Kysely<Database>, row: FirewallRow): Promise<Firewall> {
  const [firewall] = await toFirewalls(db, row.account_id, [row]);
  if (!firewall) throw fail.internal();
  return firewall;
}
