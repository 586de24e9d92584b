import { type Static, Type } from 'typebox';
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
