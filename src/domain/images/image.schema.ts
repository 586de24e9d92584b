import { type Static, Type } from 'typebox';
import { IntegerId, Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { TagLabel } from '../nodes/node.schema.ts';

export const IMAGE_STATUSES = ['creating', 'pending_upload', 'available'] as const;
export const IMAGE_TYPES = ['manual', 'automatic'] as const;
/** An image's state in one of its regions, as later revisions of the API give it. */
export const IMAGE_REGION_STATUSES = ['available', 'creating', 'pending'] as const;
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
  // '' when there is none, as the live service shows it (null is taken on update and means none).
  description: Type.String({ maxLength: 65000 }),
  is_public: Type.Boolean(),
  /** Minimum disk size to deploy, in MB. */
  size: Type.Integer(),
  type: StringEnum(IMAGE_TYPES),
  expiry: Nullable(Timestamp),
  // The reference does not mark these nullable, yet says private images have none.
  eol: Nullable(Timestamp),
  vendor: Nullable(Type.String()),
  status: StringEnum(IMAGE_STATUSES),
  // Fields of later API revisions that current clients read.
  /** Where the image is kept: a private image in the one region it was made or uploaded in; public ones deploy anywhere (none listed). */
  regions: Type.Array(Type.Object({ region: Type.String(), status: StringEnum(IMAGE_REGION_STATUSES) })),
  /** Storage the image takes across its regions, in MB. */
  total_size: Type.Integer(),
  /** A private image's tags, sorted; public images have none. */
  tags: Type.Array(Type.String()),
  // Image sharing and metadata (cloud-init) are not offered.
  is_shared: Type.Boolean(),
  capabilities: Type.Array(Type.String()),
  /** A private image's sharing, as the live service shows it unshared (no share groups are offered); null on public ones. */
  image_sharing: Nullable(
    Type.Object({
      shared_with: Type.Object({ sharegroup_count: Type.Integer(), sharegroup_list_url: Type.String() }),
      shared_by: Type.Null(),
    }),
  ),
});
export type Image = Static<typeof ImageSchema>;

/** Image ids hold a slash (`node/debian12`, `private/12`); see slashIdParam. */
export const ImageParams = Type.Object({ imageId: Type.String({ minLength: 1, maxLength: 128 }) });

const ImageLabel = Type.String({ minLength: 1, maxLength: 255 });
const ImageDescription = Type.String({ minLength: 1, maxLength: 65000 });

export const CreateImageBody = Type.Object({
  disk_id: IntegerId,
  /** Defaults to the disk's label. */
  label: Type.Optional(ImageLabel),
  description: Type.Optional(ImageDescription),
  tags: Type.Optional(Type.Array(TagLabel, { maxItems: 100 })),
});
export type CreateImage = Static<typeof CreateImageBody>;

export const UploadImageBody = Type.Object({
  label: ImageLabel,
  region: Type.String({ minLength: 1, maxLength: 64 }),
  description: Type.Optional(ImageDescription),
  tags: Type.Optional(Type.Array(TagLabel, { maxItems: 100 })),
});
export type UploadImage = Static<typeof UploadImageBody>;

export const ImageUploadSchema = Type.Object({
  image: ImageSchema,
  /** Where to PUT the gzip-compressed data; it carries its own credential and works once, for 24 hours. */
  upload_to: Type.String(),
});
export type ImageUpload = Static<typeof ImageUploadSchema>;

/**
 * Label, description and tags change; `status` is accepted only as its current value (the reference's
 * body is the whole image, and clients send it back). The other image fields are read-only and ignored.
 */
export const UpdateImageBody = Type.Object({
  label: Type.Optional(ImageLabel),
  // '' is what an image without one shows; sent back, it means none, as null does.
  description: Type.Optional(Nullable(Type.String({ maxLength: 65000 }))),
  tags: Type.Optional(Type.Array(TagLabel, { maxItems: 100 })),
  status: Type.Optional(StringEnum(IMAGE_STATUSES)),
});
export type UpdateImage = Static<typeof UpdateImageBody>;
