import { type Static, Type } from 'typebox';
import { IntegerId, Nullable, Timestamp } from '../../http/schemas.ts';

/** An OAuth client a user has let into their account (the reference's AuthorizedApp). */
export const AuthorizedAppSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  thumbnail_url: Nullable(Type.String()),
  scopes: Type.String(),
  created: Timestamp,
  expiry: Nullable(Timestamp),
  website: Type.String(),
});
export type AuthorizedApp = Static<typeof AuthorizedAppSchema>;

export const AppParams = Type.Object({ appId: IntegerId });
