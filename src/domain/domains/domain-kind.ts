import { lockRows } from '../../db/row-locks.ts';
import type { EntityKind } from '../account/entity-access.ts';
import { type DomainRow, findDomainEntities, findDomainForScope } from './domain.repository.ts';
import { domainsWithIds } from './domain.service.ts';

export const domainKind: EntityKind<DomainRow> = {
  type: 'domain',
  lock: (db, id) => lockRows(db, 'domains', 'id', [id]),
  find: (db, scope, id) => findDomainForScope(db, scope, id),
  entities: (db, accountId, ids) => findDomainEntities(db, accountId, ids),
  tagging: { noun: 'Domain', field: 'domains', view: (db, _ctx, accountId, ids) => domainsWithIds(db, accountId, ids) },
};
