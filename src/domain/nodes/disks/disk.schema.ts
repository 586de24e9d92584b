import { type Static, Type } from 'typebox';
import { INT32_MAX, IntegerId, StringEnum, Timestamp } from '../../../http/schemas.ts';
import { deployFields, RootPass } from '../node.schema.ts';

export const DISK_STATUSES = ['ready', 'not ready', 'deleting'] as const;
export const FILESYSTEMS = ['raw', 'swap', 'ext3', 'ext4', 'initrd'] as const;
export type Filesystem = (typeof FILESYSTEMS)[number];

export const DiskSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  status: StringEnum(DISK_STATUSES),
  size: Type.Integer(),
  filesystem: StringEnum(FILESYSTEMS),
  created: Timestamp,
  updated: Timestamp,
  // Disks are not encrypted here (a field of later revisions that clients read).
  disk_encryption: StringEnum(['enabled', 'disabled'] as const),
});
export type Disk = Static<typeof DiskSchema>;

const DiskLabel = Type.String({ minLength: 1, maxLength: 48 });

export const CreateDiskBody = Type.Object({
  size: Type.Integer({ minimum: 1, maximum: INT32_MAX }),
  label: Type.Optional(DiskLabel),
  filesystem: Type.Optional(StringEnum(FILESYSTEMS)),
  ...deployFields,
});
export type CreateDisk = Static<typeof CreateDiskBody>;

/** Only the label changes here; size through resize, the rest never. */
export const UpdateDiskBody = Type.Object({ label: Type.Optional(DiskLabel) });
export type UpdateDisk = Static<typeof UpdateDiskBody>;

export const ResizeDiskBody = Type.Object({ size: Type.Integer({ minimum: 1, maximum: INT32_MAX }) });
export const DiskPasswordBody = Type.Object({ password: RootPass });

export const DiskParams = Type.Object({ nodeId: IntegerId, diskId: IntegerId });
