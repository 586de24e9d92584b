import { type Static, Type } from 'typebox';
import { IntegerId, Nullable, StringEnum, Timestamp } from '../../../http/schemas.ts';
import { FILESYSTEMS } from '../disks/disk.schema.ts';

export const BACKUP_TYPES = ['auto', 'snapshot'] as const;
export type BackupType = (typeof BACKUP_TYPES)[number];
export const BACKUP_STATUSES = [
  'paused',
  'pending',
  'running',
  'needsPostProcessing',
  'successful',
  'failed',
  'userAborted',
] as const;
export type BackupStatus = (typeof BACKUP_STATUSES)[number];

export const BackupSchema = Type.Object({
  id: Type.Integer(),
  // Where the backup is kept: its node's region when it was taken (a node made from it goes there).
  region: Type.String(),
  type: StringEnum(BACKUP_TYPES),
  status: StringEnum(BACKUP_STATUSES),
  // Whether it can be restored (or a node made from it) now: it has succeeded.
  available: Type.Boolean(),
  created: Timestamp,
  updated: Timestamp,
  // null until the backup has completed.
  finished: Nullable(Timestamp),
  label: Nullable(Type.String()),
  configs: Type.Array(Type.String()),
  disks: Type.Array(Type.Object({ size: Type.Integer(), filesystem: StringEnum(FILESYSTEMS), label: Type.String() })),
});
export type Backup = Static<typeof BackupSchema>;

/** A node's backups: the automatic ones, and its one snapshot (the current one and one being taken), null when none. */
export const BackupsSchema = Type.Object({
  automatic: Type.Array(BackupSchema),
  snapshot: Type.Object({ in_progress: Nullable(BackupSchema), current: Nullable(BackupSchema) }),
});
export type Backups = Static<typeof BackupsSchema>;

export const CreateSnapshotBody = Type.Object({ label: Type.String({ minLength: 1, maxLength: 255 }) });

export const RestoreBackupBody = Type.Object({ node_id: IntegerId, overwrite: Type.Optional(Type.Boolean()) });
export type RestoreBackup = Static<typeof RestoreBackupBody>;

export const BackupParams = Type.Object({ nodeId: IntegerId, backupId: IntegerId });
