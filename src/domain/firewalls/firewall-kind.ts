import { lockRows } from '../../db/row-locks.ts';
import type { EntityKind } from '../account/entity-access.ts';
import { type FirewallRow, findFirewallEntities, findFirewallForScope } from './firewall.repository.ts';

export const firewallKind: EntityKind<FirewallRow> = {
  type: 'firewall',
  lock: (db, id) => lockRows(db, 'firewalls', 'id', [id]),
  find: (db, scope, id) => findFirewallForScope(db, scope, id),
  entities: (db, accountId, ids) => findFirewallEntities(db, accountId, ids),
};
