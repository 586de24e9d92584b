import { type Insertable, type Kysely, type Selectable, type SqlBool, sql, type Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterOp, FilterSpec, FilterValue } from '../../db/filter.ts';
import { grantedToEntityIn } from '../../db/grant-scope.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import { preparedStatement } from '../../db/prepared.ts';
import { fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import type { EventTable } from './event.table.ts';
import { EVENT_ACTIONS, type EventAction } from './event-kinds.ts';

export type EventRow = Selectable<EventTable>;

/**
 * The reference's entity types for a node's disk and backup events: those name the node itself
 * (type `node`, as the live service records them), so `{"entity.type": "disks", "entity.id": <node>}`
 * finds that node's disk events.
 */
const NODE_PART_ACTIONS: Readonly<Record<string, readonly EventAction[]>> = {
  disks: EVENT_ACTIONS.filter((a) => a.startsWith('disk_')),
  backups: ['backups_enable', 'backups_cancel', 'backups_restore', 'node_snapshot'],
};

function nodePartEvents(op: FilterOp, value: FilterValue) {
  const actions = typeof value === 'string' && Object.hasOwn(NODE_PART_ACTIONS, value) ? NODE_PART_ACTIONS[value] : undefined;
  if (!actions || (op !== 'eq' && op !== 'neq')) return null;
  const list = sql.join(actions);
  if (op === 'eq') return sql<SqlBool>`(events.entity_type = 'node' and events.action in (${list}))`;
  // An event about no entity is none of a node's disk or backup events.
  return sql<SqlBool>`not (coalesce(events.entity_type, '') = 'node' and events.action in (${list}))`;
}

const FILTER: FilterSpec = {
  fields: {
    id: { column: 'events.id', type: 'integer' },
    action: { column: 'events.action', type: 'string' },
    created: { column: 'events.created', type: 'datetime' },
    'entity.id': { column: 'events.entity_id', type: 'integer' },
    'entity.type': { column: 'events.entity_type', type: 'string', custom: nodePartEvents, sortable: true },
    seen: { column: 'events.seen', type: 'boolean' },
    read: { column: 'events.read', type: 'boolean' },
    status: { column: 'events.status', type: 'string' },
    username: { column: 'events.username', type: 'string' },
  },
  defaultOrder: { column: 'events.id', direction: 'desc' },
  tiebreak: 'events.id',
};

/** Events of the account; a restricted user sees its own and those about entities it holds a grant on. */
function visibleEvents(db: Kysely<Database>, scope: AccountScope) {
  let q = db.selectFrom('events').selectAll('events').where('events.account_id', '=', scope.accountId);
  if (scope.restrictedUserId !== null) {
    const userId = scope.restrictedUserId;
    q = q.where((eb) =>
      eb.or([eb('events.user_id', '=', userId), grantedToEntityIn(scope, 'events.entity_type', 'events.entity_id')]),
    );
  }
  return q;
}

export function listEvents(db: Kysely<Database>, scope: AccountScope, request: PageRequest) {
  return paginate(visibleEvents(db, scope), request, FILTER);
}

export function findEvent(db: Kysely<Database>, scope: AccountScope, id: number): Promise<EventRow | undefined> {
  return visibleEvents(db, scope).where('events.id', '=', id).executeTakeFirst();
}

const insertEventStatement = preparedStatement((db, values: Insertable<EventTable>) =>
  db.insertInto('events').values(values).returningAll(),
);

export async function insertEvent(db: Kysely<Database>, values: Insertable<EventTable>): Promise<EventRow> {
  const [row] = await insertEventStatement(db, '', values);
  if (!row) throw fail.internal();
  return row;
}

export async function updateEvent(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<EventTable>,
): Promise<void> {
  await db.updateTable('events').set(values).where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Seen marks the event and every earlier one of the account. */
export async function markSeenUpTo(db: Kysely<Database>, accountId: number, id: number): Promise<void> {
  await db.updateTable('events').set({ seen: 1 }).where('account_id', '=', accountId).where('id', '<=', id).execute();
}
