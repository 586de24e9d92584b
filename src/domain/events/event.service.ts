import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import type { AccountScope } from '../account/principal.ts';
import { type EventRow, findEvent, insertEvent, listEvents, markSeenUpTo, updateEvent } from './event.repository.ts';
import type { Event } from './event.schema.ts';
import type { EventAction, EventEntityType, EventStatus } from './event-kinds.ts';

export interface EntityRef {
  /** Null for an entity without an integer id (an OAuth client): the API shows 0, as for the account. */
  id: number | null;
  type: EventEntityType;
  label: string;
  url: string;
}

export interface EventActor {
  accountId: number;
  userId: number | null;
  username: string | null;
}

export interface EventSpec {
  action: EventAction;
  entity: EntityRef | null;
  secondary?: { id: string; type: string; label: string; url: string } | null;
  /** finished for changes done at once; scheduled for work a job will carry out. */
  status?: EventStatus;
  message?: string | null;
}

/** Records an event; call it with the transaction of the change it reports. */
export async function recordEvent(db: Kysely<Database>, ctx: Context, actor: EventActor, spec: EventSpec): Promise<EventRow> {
  const now = toTimestamp(ctx.clock.nowMs());
  const status = spec.status ?? 'finished';
  return insertEvent(db, {
    account_id: actor.accountId,
    user_id: actor.userId,
    username: actor.username,
    action: spec.action,
    entity_type: spec.entity?.type ?? null,
    entity_id: spec.entity?.id ?? null,
    entity_label: spec.entity?.label ?? null,
    entity_url: spec.entity?.url ?? null,
    secondary_entity: spec.secondary ? JSON.stringify(spec.secondary) : null,
    status,
    percent_complete: status === 'finished' ? 100 : status === 'notification' ? null : 0,
    rate: null,
    time_remaining: null,
    message: spec.message ?? null,
    duration: status === 'finished' ? 0 : null,
    seen: 0,
    read: 0,
    created: now,
    updated: now,
  });
}

/** Moves an event along as the job behind it runs. */
export async function progressEvent(
  db: Kysely<Database>,
  ctx: Context,
  event: { accountId: number; id: number; created: string },
  status: EventStatus,
  percentComplete: number,
): Promise<void> {
  const nowMs = ctx.clock.nowMs();
  const done = status === 'finished' || status === 'failed';
  await updateEvent(db, event.accountId, event.id, {
    status,
    percent_complete: percentComplete,
    updated: toTimestamp(nowMs),
    ...(done ? { duration: Math.max(0, (nowMs - Date.parse(`${event.created}Z`)) / 1000) } : {}),
  });
}

export function eventRowToEvent(row: EventRow): Event {
  return {
    id: row.id,
    action: row.action as Event['action'],
    created: row.created,
    duration: row.duration,
    entity:
      row.entity_type === null
        ? null
        : {
            id: row.entity_id ?? 0,
            label: row.entity_label ?? '',
            type: row.entity_type as EntityRef['type'],
            url: row.entity_url ?? '',
          },
    secondary_entity: row.secondary_entity ? (JSON.parse(row.secondary_entity) as Event['secondary_entity']) : null,
    percent_complete: row.percent_complete,
    rate: row.rate,
    read: row.read === 1,
    seen: row.seen === 1,
    status: row.status as Event['status'],
    time_remaining: row.time_remaining,
    username: row.username,
    message: row.message,
  };
}

export async function getEvents(ctx: Context, scope: AccountScope, request: PageRequest) {
  return mapPage(await listEvents(ctx.db, scope, request), eventRowToEvent);
}

export async function getEvent(ctx: Context, scope: AccountScope, id: number): Promise<Event> {
  const row = await findEvent(ctx.db, scope, id);
  if (!row) throw fail.notFound('Event not found');
  return eventRowToEvent(row);
}

export async function markEventSeen(ctx: Context, scope: AccountScope, id: number): Promise<void> {
  const row = await findEvent(ctx.db, scope, id);
  if (!row) throw fail.notFound('Event not found');
  await markSeenUpTo(ctx.db, scope.accountId, id);
}

export async function markEventRead(ctx: Context, scope: AccountScope, id: number): Promise<void> {
  const row = await findEvent(ctx.db, scope, id);
  if (!row) throw fail.notFound('Event not found');
  await updateEvent(ctx.db, scope.accountId, id, { read: 1 });
}
