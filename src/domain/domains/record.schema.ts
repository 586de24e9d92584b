import { type Static, Type } from 'typebox';
import { INT32_MAX, IntegerId, Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';

export const RECORD_TYPES = ['A', 'AAAA', 'NS', 'MX', 'CNAME', 'TXT', 'SRV', 'PTR', 'CAA'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
export const CAA_TAGS = ['issue', 'issuewild', 'iodef'] as const;
export type CaaTag = (typeof CAA_TAGS)[number];

export const DomainRecordSchema = Type.Object({
  id: Type.Integer(),
  type: StringEnum(RECORD_TYPES),
  name: Type.String(),
  target: Type.String(),
  priority: Type.Integer(),
  weight: Type.Integer(),
  port: Type.Integer(),
  service: Nullable(Type.String()),
  protocol: Nullable(Type.String()),
  ttl_sec: Type.Integer(),
  tag: Nullable(StringEnum(CAA_TAGS)),
  created: Timestamp,
  updated: Timestamp,
});
export type DomainRecord = Static<typeof DomainRecordSchema>;

/** What each type makes of these is checked by the service (record-rules.ts). */
const recordFields = {
  // An empty name is the domain itself (a null MX, a CAA for the whole domain).
  name: Type.Optional(Type.String({ maxLength: 100 })),
  target: Type.Optional(Type.String({ maxLength: 65535 })),
  priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  weight: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  service: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  protocol: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  ttl_sec: Type.Optional(Type.Integer({ minimum: 0, maximum: INT32_MAX })),
  tag: Type.Optional(Nullable(StringEnum(CAA_TAGS))),
};

export const CreateRecordBody = Type.Object({ type: StringEnum(RECORD_TYPES), ...recordFields });
export type CreateRecord = Static<typeof CreateRecordBody>;

export const UpdateRecordBody = Type.Object({ type: Type.Optional(StringEnum(RECORD_TYPES)), ...recordFields });
export type UpdateRecord = Static<typeof UpdateRecordBody>;

export const RecordParams = Type.Object({ domainId: IntegerId, recordId: IntegerId });
