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
  // An integer id, except a public image's (`node/debian12`).
  secondary_entity: Nullable(
    Type.Object({
      id: Type.Union([Type.Integer(), Type.String()]),
      label: Type.String(),
      type: Type.String(),
      url: Type.String(),
    }),
  ),
  percent_complete: Nullable(Type.Integer()),
  rate: Nullable(Type.String()),
  read: Type.Boolean(),
  seen: Type.Boolean(),
  status: StringEnum(EVENT_STATUSES),
  time_remaining: Nullable(Type.String()),
  username: Type.String(),
  message: Type.String(),
  details: Type.Object({}),
});
export type Event = Static<typeof EventSchema>;

export const EventParams = Type.Object({ eventId: IntegerId });
