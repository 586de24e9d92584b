import { type Static, Type } from 'typebox';
import { IntegerId, Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { EVENT_ACTIONS, EVENT_ENTITY_TYPES, EVENT_STATUSES } from './event-kinds.ts';

const EntityRef = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  type: StringEnum(EVENT_ENTITY_TYPES),
  url: Type.String(),
});

export const EventSchema = Type.Object({
  id: Type.Integer(),
  action: StringEnum(EVENT_ACTIONS),
  created: Timestamp,
  duration: Nullable(Type.Number()),
  entity: Nullable(EntityRef),
  secondary_entity: Nullable(Type.Object({ id: Type.String(), label: Type.String(), type: Type.String(), url: Type.String() })),
  percent_complete: Nullable(Type.Integer()),
  rate: Nullable(Type.String()),
  read: Type.Boolean(),
  seen: Type.Boolean(),
  status: StringEnum(EVENT_STATUSES),
  time_remaining: Nullable(Type.String()),
  username: Nullable(Type.String()),
  message: Nullable(Type.String()),
});
export type Event = Static<typeof EventSchema>;

export const EventParams = Type.Object({ eventId: IntegerId });
