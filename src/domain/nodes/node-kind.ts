import { lockRows } from '../../db/row-locks.ts';
import type { EntityKind } from '../account/entity-access.ts';
import { findNodeEntities, findNodeForScope, type NodeRow } from './node.repository.ts';
import { nodesWithIds } from './node.service.ts';

export const nodeKind: EntityKind<NodeRow> = {
  type: 'node',
  lock: (db, id) => lockRows(db, 'nodes', 'id', [id]),
  find: (db, scope, id) => findNodeForScope(db, scope, id),
  entities: (db, accountId, ids) => findNodeEntities(db, accountId, ids),
  tagging: { noun: 'Node', field: 'nodes', view: (db, ctx, accountId, ids) => nodesWithIds(db, ctx, accountId, ids) },
};
