import { type Static, Type } from 'typebox';
import { IntegerId, Nullable, Timestamp } from '../../http/schemas.ts';
import { PATTERN_REASON } from '../../http/validation.ts';

export const TokenSchema = Type.Object({
  id: Type.Integer(),
  scopes: Type.String(),
  created: Timestamp,
  label: Type.String(),
  /** The whole value once, in the answer to the create; a prefix afterwards (see tokenPrefix). */
  token: Type.String(),
  // A token that never expires shows NEVER_EXPIRES, as the live service shows one.
  expiry: Timestamp,
});
export type Token = Static<typeof TokenSchema>;

/** The expiry shown for a token made without one (clients take a year-2999 date for never). */
export const NEVER_EXPIRES = '2999-12-12T05:00:00';

const TokenLabel = Type.String({ minLength: 1, maxLength: 100 });

/** ISO 8601 date-time; the zone may be left out (UTC), as in the reference's own examples. */
const DateTimeInput = Type.String({
  maxLength: 64,
  pattern: '^\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?([Zz]|[+-]\\d{2}:?\\d{2})?$',
  [PATTERN_REASON]: 'Must be an ISO 8601 date-time such as 2030-01-31T12:00:00',
});

export const CreateTokenBody = Type.Object({
  scopes: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  expiry: Type.Optional(Nullable(DateTimeInput)),
  label: Type.Optional(TokenLabel),
});
export type CreateToken = Static<typeof CreateTokenBody>;

/** Only the label changes; the other fields are read-only and ignored. */
export const UpdateTokenBody = Type.Object({ label: Type.Optional(TokenLabel) });
export type UpdateToken = Static<typeof UpdateTokenBody>;

export const TokenParams = Type.Object({ tokenId: IntegerId });
