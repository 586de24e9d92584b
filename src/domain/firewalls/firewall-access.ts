import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { lockRows } from '../../db/row-locks.ts';
import { fail } from '../../errors.ts';
import { type Permission, permits } from '../account/grants.ts';
import type { AccountScope } from '../account/principal.ts';
import type { EntityRef } from '../events/event.service.ts';
import { type FirewallRow, findFirewallForScope } from './firewall.repository.ts';

/**
 * The firewall a request acts on: another account's, or one a restricted user holds no grant on,
 * is not found (404); a read_only grant where the operation writes is forbidden (403). A write
 * locks the firewall first, so writes to one firewall (its devices and rules too) take turns.
 */
export async function firewallFor(db: Kysely<Database>, scope: AccountScope, id: number, need: Permission): Promise<FirewallRow> {
  if (need === 'read_write') await lockRows(db, 'firewalls', 'id', [id]);
  const found = await findFirewallForScope(db, scope, id);
  if (!found) throw fail.notFound('Firewall not found');
  if (!permits(found.permission, need)) throw fail.forbidden('Unauthorized: this needs read_write access to the firewall');
  return found.row;
}

export function firewallEntity(row: Pick<FirewallRow, 'id' | 'label'>): EntityRef {
  return { id: row.id, type: 'firewall', label: row.label, url: `/v4/networking/firewalls/${row.id}` };
}
