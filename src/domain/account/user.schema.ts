import { type Static, Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { PATTERN_REASON } from '../../http/validation.ts';

export const Username = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: '^[a-zA-Z0-9]((?![_-]{2,})[a-zA-Z0-9-_])+[a-zA-Z0-9]$',
  [PATTERN_REASON]:
    'Must begin and end with a letter or digit and hold only letters, digits, - and _, never two of - and _ in a row',
});

const Email = Type.String({ format: 'email', maxLength: 254 });

export const UserSchema = Type.Object({
  username: Type.String(),
  email: Type.String(),
  restricted: Type.Boolean(),
  /** Labels of the user's profile SSH keys. */
  ssh_keys: Type.Array(Type.String()),
  tfa_enabled: Type.Boolean(),
  // Always null: no phone numbers are verified here.
  verified_phone_number: Type.Null(),
  // When the password was set; null for a user without one.
  password_created: Nullable(Timestamp),
  // The last sign-in through the sign-in page (only those that succeed are recorded); null before one.
  last_login: Nullable(Type.Object({ login_datetime: Timestamp, status: StringEnum(['successful'] as const) })),
  // Always default: there are no parent and child accounts here.
  user_type: StringEnum(['default'] as const),
});
export type User = Static<typeof UserSchema>;

export const CreateUserBody = Type.Object({
  username: Username,
  email: Email,
  restricted: Type.Optional(Type.Boolean({ default: false })),
});
export type CreateUser = Static<typeof CreateUserBody>;

/** Read-only fields a client echoes back (ssh_keys, tfa_enabled) are accepted and ignored. */
export const UpdateUserBody = Type.Object({
  username: Type.Optional(Username),
  email: Type.Optional(Email),
  restricted: Type.Optional(Type.Boolean()),
});
export type UpdateUser = Static<typeof UpdateUserBody>;

export const UserParams = Type.Object({ username: Type.String({ maxLength: 64 }) });
