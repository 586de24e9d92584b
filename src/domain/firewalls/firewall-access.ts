import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import { entityFor } from '../account/entity-access.ts';
import type { Permission } from '../account/grants.ts';
import type { AccountScope } from '../account/principal.ts';
import type { EntityRef } from '../events/event.service.ts';
import { type FirewallRow, findFirewallForScope } from './firewall.repository.ts';

/** The firewall a request acts on (404, 403 and the write lock of `entityFor`: its devices and rules take turns too). */
export function firewallFor(db: Kysely<Database>, scope: AccountScope, id: number, need: Permission): Promise<FirewallRow> {
  const entity = { table: 'firewalls', id, what: 'the firewall' } as const;
  return entityFor(
    db,
    entity,
    need,
    (d) => findFirewallForScope(d, scope, id),
    () => fail.notFound('Firewall not found'),
  );
}

export function firewallEntity(row: Pick<FirewallRow, 'id' | 'label'>): EntityRef {
  return { id: row.id, type: 'firewall', label: row.label, url: `/v4/networking/firewalls/${row.id}` };
}
