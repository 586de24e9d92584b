import { type Static, Type } from 'typebox';
import { devicesBody } from '../configs/config.schema.ts';
import { deployFields, RootPass } from '../node.schema.ts';

const AutoDiskResize = Type.Optional(Type.Boolean({ default: true }));

export const ResizeNodeBody = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 64 }),
  allow_auto_disk_resize: AutoDiskResize,
});
export type ResizeNode = Static<typeof ResizeNodeBody>;

export const MutateNodeBody = Type.Object({ allow_auto_disk_resize: AutoDiskResize });

export const MigrateNodeBody = Type.Object({
  region: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  upgrade: Type.Optional(Type.Boolean({ default: false })),
});
export type MigrateNode = Static<typeof MigrateNodeBody>;

export const RebuildNodeBody = Type.Object({
  ...deployFields,
  image: Type.String({ minLength: 1, maxLength: 128 }),
  root_pass: RootPass,
  booted: Type.Optional(Type.Boolean()),
});
export type RebuildNode = Static<typeof RebuildNodeBody>;

/** Rescue mode mounts up to seven devices; sdh is its own, so `devices.sdh` is a 400. */
export const RESCUE_SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg'] as const;
export const RescueNodeBody = Type.Object({ devices: Type.Optional(devicesBody(RESCUE_SLOTS)) });
export type RescueNode = {
  devices?: Partial<Record<(typeof RESCUE_SLOTS)[number], { disk_id?: number | null; volume_id?: number | null } | null>>;
};

export const NodePasswordBody = Type.Object({ root_pass: RootPass });
