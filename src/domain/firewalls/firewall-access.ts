import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import { entityFor } from '../account/entity-access.ts';
import type { Permission } from '../account/grants.ts';
import type { AccountScope } from '../account/principal.ts';
import type { EntityRef } from '../events/event.service.ts';
import type { FirewallRow } from './firewall.repository.ts';
import { firewallKind } from './firewall-kind.ts';

/** The firewall a request acts on (404, 403 and the write lock of `entityFor`: its devices and rules take turns too). */
export function firewallFor(db: Kysely<Database>, scope: AccountScope, id: number, need: Permission): Promise<FirewallRow> {
  return entityFor(db, firewallKind, scope, id, need, {
    what: 'the firewall',
    missing: () => fail.notFound(),
  });
}

/**
 * A firewall a request names in its body (a new node's `firewall_id`): as `firewallFor`, but one the
 * caller cannot see is a 400 naming the field, as for any other bad value in the body.
 */
export function firewallNamedIn(
  db: Kysely<Database>,
  scope: AccountScope,
  id: number,
  need: Permission,
  field: string,
): Promise<FirewallRow> {
  return entityFor(db, firewallKind, scope, id, need, {
    what: `firewall ${id}`,
    missing: () => fail.badRequest(`Firewall ${id} does not exist or is not available to you`, field),
  });
}

export function firewallEntity(row: Pick<FirewallRow, 'id' | 'label'>): EntityRef {
  return { id: row.id, type: 'firewall', label: row.label, url: `/v4/networking/firewalls/${row.id}` };
}
