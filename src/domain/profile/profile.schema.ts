import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';

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
  lish_auth_method: Type.Union([Type.Literal('password_keys'), Type.Literal('keys_only'), Type.Literal('disabled')]),
  authorized_keys: Nullable(Type.Array(Type.String())),
  two_factor_auth: Type.Boolean(),
  restricted: Type.Boolean(),
  authentication_type: Type.Union([Type.Literal('password'), Type.Literal('github')]),
});
export type Profile = Static<typeof ProfileSchema>;
