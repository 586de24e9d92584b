import { type Static, Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';

const LISH_AUTH_METHODS = ['password_keys', 'keys_only', 'disabled'] as const;

export const ProfileSchema = Type.Object({
  uid: Type.Integer(),
  username: Type.String(),
  email: Type.String({ format: 'email' }),
  timezone: Type.String(),
  email_notifications: Type.Boolean(),
  referrals: Type.Object({
    code: Type.String(),
    url: Type.String(),
    total: Type.Integer(),
    completed: Type.Integer(),
    pending: Type.Integer(),
    credit: Type.Integer(),
  }),
  ip_whitelist_enabled: Type.Boolean(),
  lish_auth_method: StringEnum(LISH_AUTH_METHODS),
  authorized_keys: Nullable(Type.Array(Type.String())),
  two_factor_auth: Type.Boolean(),
  restricted: Type.Boolean(),
  authentication_type: StringEnum(['password', 'github'] as const),
  // Always null: no phone numbers are verified here.
  verified_phone_number: Type.Null(),
  // Always default: there are no parent and child accounts here.
  user_type: StringEnum(['default'] as const),
});
export type Profile = Static<typeof ProfileSchema>;

/** Editable fields; the read-only ones a client echoes back (uid, username, referrals, ...) are ignored. */
export const UpdateProfileBody = Type.Object({
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  email_notifications: Type.Optional(Type.Boolean()),
  ip_whitelist_enabled: Type.Optional(Type.Boolean()),
  lish_auth_method: Type.Optional(StringEnum(LISH_AUTH_METHODS)),
  authorized_keys: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: 100 }))),
});
export type UpdateProfile = Static<typeof UpdateProfileBody>;
