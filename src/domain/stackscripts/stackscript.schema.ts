import { type Static, Type } from 'typebox';
import { IntegerId, Timestamp } from '../../http/schemas.ts';

/** In a script's `images`: it deploys to every image. */
export const ANY_IMAGE = 'any/all';

/** A field the script's tag declares; the optional keys only when it sets them, lower case as clients read them. */
export const UserDefinedFieldSchema = Type.Object({
  label: Type.String(),
  name: Type.String(),
  example: Type.String(),
  oneof: Type.Optional(Type.String()),
  manyof: Type.Optional(Type.String()),
  default: Type.Optional(Type.String()),
  header: Type.Optional(Type.String()),
  required: Type.Optional(Type.String()),
});
export type UserDefinedFieldView = Static<typeof UserDefinedFieldSchema>;

export const StackScriptSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  user_gravatar_id: Type.String(),
  label: Type.String(),
  description: Type.String(),
  // Always 0 and '': scripts are not ordered or given logos for a marketplace here.
  ordinal: Type.Integer(),
  logo_url: Type.String(),
  images: Type.Array(Type.String()),
  deployments_total: Type.Integer(),
  deployments_active: Type.Integer(),
  is_public: Type.Boolean(),
  created: Timestamp,
  updated: Timestamp,
  rev_note: Type.String(),
  script: Type.String(),
  user_defined_fields: Type.Array(UserDefinedFieldSchema),
  mine: Type.Boolean(),
});
export type StackScript = Static<typeof StackScriptSchema>;

const Label = Type.String({ minLength: 3, maxLength: 128 });
const Images = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 100 });
const Description = Type.String({ maxLength: 65000 });
const RevNote = Type.String({ maxLength: 65000 });
const Script = Type.String({ minLength: 2 });

/** The writable fields; the read-only ones of the object (id, username, …) are ignored when sent. */
export const CreateStackScriptBody = Type.Object({
  label: Label,
  script: Script,
  images: Images,
  description: Type.Optional(Description),
  is_public: Type.Optional(Type.Boolean()),
  rev_note: Type.Optional(RevNote),
});
export type CreateStackScript = Static<typeof CreateStackScriptBody>;

export const UpdateStackScriptBody = Type.Partial(CreateStackScriptBody);
export type UpdateStackScript = Static<typeof UpdateStackScriptBody>;

export const StackScriptParams = Type.Object({ stackscriptId: IntegerId });
