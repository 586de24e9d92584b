import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';

export const CLIENT_STATUSES = ['active', 'disabled', 'suspended'] as const;

/** What a read shows in place of the secret: it is in an answer only when made (create, reset-secret). */
export const REDACTED_SECRET = '<REDACTED>';

export const OAuthClientSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  redirect_uri: Type.String(),
  public: Type.Boolean(),
  status: Type.Union(CLIENT_STATUSES.map((s) => Type.Literal(s))),
  secret: Type.String(),
  thumbnail_url: Nullable(Type.String()),
});
export type OAuthClient = Static<typeof OAuthClientSchema>;

const Label = Type.String({ minLength: 1, maxLength: 512 });
/** Checked further by the service (an absolute https URL, or http to a loopback address; no fragment). */
const RedirectUri = Type.String({ minLength: 1, maxLength: 2048 });

export const CreateOAuthClientBody = Type.Object({
  label: Label,
  redirect_uri: RedirectUri,
  public: Type.Optional(Type.Boolean()),
});
export type CreateOAuthClient = Static<typeof CreateOAuthClientBody>;

export const UpdateOAuthClientBody = Type.Object({
  label: Type.Optional(Label),
  redirect_uri: Type.Optional(RedirectUri),
  public: Type.Optional(Type.Boolean()),
});
export type UpdateOAuthClient = Static<typeof UpdateOAuthClientBody>;

export const OAuthClientParams = Type.Object({
  clientId: Type.String({ pattern: '^[0-9a-f]{20}$', maxLength: 20 }),
});
