import { type Static, Type } from 'typebox';
import { IntegerId, Nullable, StringEnum, Timestamp } from '../../../http/schemas.ts';
import { PATTERN_REASON } from '../../../http/validation.ts';

export const SERVICE_TYPES = ['url', 'tcp'] as const;
export const SERVICE_STATUSES = ['disabled', 'pending', 'ok', 'problem'] as const;
export type ServiceStatus = (typeof SERVICE_STATUSES)[number];

export const ServiceSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  service_type: StringEnum(SERVICE_TYPES),
  address: Type.String(),
  timeout: Type.Integer(),
  body: Nullable(Type.String()),
  consultation_group: Type.String(),
  notes: Nullable(Type.String()),
  /** Set only for a service watched at a private address. */
  region: Nullable(Type.String()),
  credentials: Type.Array(Type.Integer()),
  status: StringEnum(SERVICE_STATUSES),
  created: Timestamp,
  updated: Timestamp,
});
export type Service = Static<typeof ServiceSchema>;

/** The reference's pattern, anchored (as written it would take any text holding three such characters). */
const Label = Type.String({
  minLength: 3,
  maxLength: 64,
  pattern: '^[a-zA-Z0-9_ .-]{3,64}$',
  [PATTERN_REASON]: 'Must hold only letters, digits, spaces, -, _ and .',
});

const fields = {
  label: Label,
  service_type: StringEnum(SERVICE_TYPES),
  /** A URL for `url`, `host:port` for `tcp`; checked against the type by the service. */
  address: Type.String({ minLength: 3, maxLength: 2048 }),
  timeout: Type.Integer({ minimum: 1, maximum: 255 }),
  body: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  consultation_group: Type.Optional(Type.String({ maxLength: 50 })),
  notes: Type.Optional(Nullable(Type.String({ maxLength: 10000 }))),
  region: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  credentials: Type.Optional(Type.Array(IntegerId, { maxItems: 100 })),
};

export const CreateServiceBody = Type.Object(fields);
export type CreateService = Static<typeof CreateServiceBody>;

/** Every field may be left out; what is left out keeps its value. */
export const UpdateServiceBody = Type.Partial(Type.Object(fields));
export type UpdateService = Static<typeof UpdateServiceBody>;

export const ServiceParams = Type.Object({ serviceId: IntegerId });
