import { type Static, Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';

export const IMAGE_STATUSES = ['creating', 'pending_upload', 'available'] as const;
export const IMAGE_TYPES = ['manual', 'automatic'] as const;
/** Public ids begin with this; private ones with `private/`. */
export const PUBLIC_IMAGE_PREFIX = 'node/';
export const PRIVATE_IMAGE_PREFIX = 'private/';

export const ImageSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  created: Timestamp,
  updated: Timestamp,
  /** The creating user's name, or `node` for public images. */
  created_by: Type.String(),
  deprecated: Type.Boolean(),
  description: Nullable(Type.String({ minLength: 1, maxLength: 65000 })),
  is_public: Type.Boolean(),
  /** Minimum disk size to deploy, in MB. */
  size: Type.Integer(),
  type: StringEnum(IMAGE_TYPES),
  expiry: Nullable(Timestamp),
  // The reference does not mark these nullable, yet says private images have none.
  eol: Nullable(Timestamp),
  vendor: Nullable(Type.String()),
  status: StringEnum(IMAGE_STATUSES),
});
export type Image = Static<typeof ImageSchema>;

/** Image ids hold a slash (`node/debian12`, `private/12`); see slashIdParam. */
export const ImageParams = Type.Object({ imageId: Type.String({ minLength: 1, maxLength: 128 }) });
