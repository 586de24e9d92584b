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

/**
 * The other object an event concerns (a node's disk or config, the image a node was made from, the
 * node a clone went to), as the live service names it: an integer id, except a public image's,
 * which is its text id (`node/debian12`).
 */
export interface SecondaryRef {
  id: number | string;
  /** `disk`, `node_config`, `image`, `node`, `domain_record`, `managed_service` */
  type: string;
  label: string;
  url: string;
}

export interface EventActor {
  accountId: number;
  userId: number | null;
  /** Null when no user acted (the operator, the watchdog, a probe): the event shows SYSTEM_USERNAME. */
  username: string | null;
}

/** The author the live service's clients always find (its events never carry a null username) for events no user caused. */
export const SYSTEM_USERNAME = 'system';

export interface EventSpec {
  action: EventAction;
  entity: EntityRef | null;
  secondary?: SecondaryRef | null;
  /**
   * notification (the default) for a change done at once, which has no progress to follow, as the
   * live service records them and its console shows them; scheduled for work a job will carry out;
   * finished for work the live service runs as a job that is done here at once (an empty node's create).
   */
  status?: EventStatus;
  message?: string;
}

/** How a running operation goes on: what is left of it and how fast it moves data, each null when not known. */
export interface EventPace {
  remainingMs: number | null;
  mbPerSecond: number | null;
}

/** Records an event; call it with the transaction of the change it reports. */
export async function recordEvent(db: Kysely<Database>, ctx: Context, actor: EventActor, spec: EventSpec): Promise<EventRow> {
  const now = toTimestamp(ctx.clock.nowMs());
  const status = spec.status ?? 'notification';
  return insertEvent(db, {
    account_id: actor.accountId,
    user_id: actor.userId,
    username: actor.username ?? SYSTEM_USERNAME,
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
    message: spec.message ?? '',
    duration: status === 'finished' ? 0 : null,
    seen: 0,
    read: 0,
    created: now,
    updated: now,
  });
}

/**
 * Moves an event along as the job behind it runs. While it runs it shows what is left (`0:0:20`)
 * and its rate (`464.00 MB/s`) when the pace says; once done, neither, and its duration in whole
 * seconds, as the live service shows them. A `message` (why it failed) replaces the event's.
 */
export async function progressEvent(
  db: Kysely<Database>,
  ctx: Context,
  event: { accountId: number; id: number; created: string },
  status: EventStatus,
  percentComplete: number,
  pace: EventPace | null = null,
  message?: string,
): Promise<void> {
  const nowMs = ctx.clock.nowMs();
  const done = status === 'finished' || status === 'failed';
  const running = status === 'started' && pace !== null;
  await updateEvent(db, event.accountId, event.id, {
    status,
    percent_complete: percentComplete,
    time_remaining: running && pace.remainingMs !== null ? hoursMinutesSeconds(pace.remainingMs) : null,
    rate: running && pace.mbPerSecond !== null ? `${pace.mbPerSecond.toFixed(2)} MB/s` : null,
    updated: toTimestamp(nowMs),
    ...(done ? { duration: Math.round(elapsedSeconds(event.created, nowMs)) } : {}),
    ...(message !== undefined ? { message } : {}),
  });
}

/** `0:0:20`, the live service's spelling of a time left (hours, minutes, seconds, none padded). */
function hoursMinutesSeconds(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 3600)}:${Math.floor((total % 3600) / 60)}:${total % 60}`;
}

function elapsedSeconds(created: string, nowMs: number): number {
  return Math.max(0, (nowMs - Date.parse(`${created}Z`)) / 1000);
}

/**
 * An event as the API shows it. A started event's duration is the time it has run so far (to the
 * microsecond, as the live service gives it); a finished or failed one's is kept when it ends; a
 * scheduled or notification event has none.
 */
export function eventRowToEvent(row: EventRow, nowMs: number): Event {
  return {
    id: row.id,
    action: row.action as Event['action'],
    created: row.created,
    duration: row.status === 'started' ? Math.round(elapsedSeconds(row.created, nowMs) * 1e6) / 1e6 : row.duration,
    entity:
      row.entity_type === null
        ? null
        : {
            id: row.entity_id ?? 0,
            label: row.entity_label ?? '',
            type: row.entity_type as EntityRef['type'],
            url: row.entity_url ?? '',
          },
    secondary_entity: row.secondary_entity ? (JSON.parse(row.secondary_entity) as SecondaryRef) : null,
    percent_complete: row.percent_complete,
    rate: row.rate,
    read: row.read === 1,
    seen: row.seen === 1,
    status: row.status as Event['status'],
    time_remaining: row.time_remaining,
    username: row.username,
    message: row.message,
    details: {},
  };
}

export async function getEvents(ctx: Context, scope: AccountScope, request: PageRequest) {
  const nowMs = ctx.clock.nowMs();
  return mapPage(await listEvents(ctx.db, scope, request), (row) => eventRowToEvent(row, nowMs));
}

export async function getEvent(ctx: Context, scope: AccountScope, id: number): Promise<Event> {
  const row = await findEvent(ctx.db, scope, id);
  if (!row) throw fail.notFound();
  return eventRowToEvent(row, ctx.clock.nowMs());
}

export async function markEventSeen(ctx: Context, scope: AccountScope, id: number): Promise<void> {
  const row = await findEvent(ctx.db, scope, id);
  if (!row) throw fail.notFound();
  await markSeenUpTo(ctx.db, scope.accountId, id);
}

export async function markEventRead(ctx: Context, scope: AccountScope, id: number): Promise<void> {
  const row = await findEvent(ctx.db, scope, id);
  if (!row) throw fail.notFound();
  await updateEvent(ctx.db, scope.accountId, id, { read: 1 });
}
