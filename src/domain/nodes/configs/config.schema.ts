import { type Static, Type } from 'typebox';
import { INT32_MAX, IntegerId, Nullable, StringEnum, Timestamp } from '../../../http/schemas.ts';
import { PATTERN_REASON } from '../../../http/validation.ts';

export const DEVICE_SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg', 'sdh'] as const;
export type DeviceSlot = (typeof DEVICE_SLOTS)[number];
export const RUN_LEVELS = ['default', 'single', 'binbash'] as const;
export const VIRT_MODES = ['paravirt', 'fullvirt'] as const;
export const INTERFACE_PURPOSES = ['public', 'vlan'] as const;
export const MAX_INTERFACES = 3;

/** One network interface; its position in the list is the eth number it configures. */
export const InterfaceSchema = Type.Object({
  purpose: StringEnum(INTERFACE_PURPOSES),
  // A public interface carries no label or address; clients send "" or null for them.
  label: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  ipam_address: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  // Later revisions: the interface whose gateway is the default route (only a public one here).
  primary: Type.Optional(Nullable(Type.Boolean())),
});
export type InterfaceBody = Static<typeof InterfaceSchema>;

/** An interface as a config stores it (and a backup keeps it). */
export const InterfaceView = Type.Object({
  purpose: StringEnum(INTERFACE_PURPOSES),
  label: Nullable(Type.String()),
  ipam_address: Nullable(Type.String()),
  primary: Type.Optional(Type.Boolean()),
});
export type Interface = Static<typeof InterfaceView>;

/**
 * An interface as clients read it, with the fields of later revisions: its id, whether it is the
 * primary one and whether it is in use (its config is the one the running node booted); no VPC is
 * offered, so what belongs to VPC interfaces is null, as the live service shows it on the others.
 */
export const ConfigInterfaceView = Type.Object({
  id: Type.Integer(),
  purpose: StringEnum(INTERFACE_PURPOSES),
  label: Nullable(Type.String()),
  ipam_address: Nullable(Type.String()),
  primary: Type.Boolean(),
  active: Type.Boolean(),
  vpc_id: Type.Null(),
  subnet_id: Type.Null(),
  ipv4: Type.Null(),
  ip_ranges: Type.Null(),
  ipv6: Type.Null(),
});

export const Interfaces = Type.Array(InterfaceSchema, { maxItems: MAX_INTERFACES });

const Helpers = Type.Object({
  updatedb_disabled: Type.Boolean(),
  distro: Type.Boolean(),
  modules_dep: Type.Boolean(),
  network: Type.Boolean(),
  devtmpfs_automount: Type.Boolean(),
});
export type ConfigHelpers = Static<typeof Helpers>;

/**
 * A device slot as shown: the disk in it, or null when empty; every slot is listed (clients test
 * `devices.sdb === null`). Volumes are not offered: `volume_id` is always null, as the live service
 * shows a slot that holds a disk.
 */
const DeviceView = Type.Object({ disk_id: Type.Integer(), volume_id: Nullable(Type.Integer()) });
const DevicesView = Type.Object(Object.fromEntries(DEVICE_SLOTS.map((s) => [s, Nullable(DeviceView)])));

/**
 * In requests a slot may be null (empty) or name a disk; `volume_id` is accepted only as null. A
 * device map holds only the slots of `slots`: any other key is a 400 naming it (`devices.sdz`).
 */
export function devicesBody(slots: readonly string[]) {
  const device = Nullable(
    Type.Object(
      { disk_id: Type.Optional(Nullable(IntegerId)), volume_id: Type.Optional(Nullable(IntegerId)) },
      { additionalProperties: false },
    ),
  );
  return Type.Object(Object.fromEntries(slots.map((s) => [s, Type.Optional(device)])), { additionalProperties: false });
}
const DevicesBody = devicesBody(DEVICE_SLOTS);
export type DevicesBodyT = Partial<Record<DeviceSlot, { disk_id?: number | null; volume_id?: number | null } | null>>;

const ConfigLabel = Type.String({ minLength: 1, maxLength: 48 });
const RootDevice = Type.String({
  maxLength: 64,
  pattern: '^[a-zA-Z0-9/_-]+$',
  [PATTERN_REASON]: 'May hold only letters, digits, /, _ and -',
});

export const ConfigSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  kernel: Type.String(),
  // '' when none, never null, as the live service shows it.
  comments: Type.String(),
  memory_limit: Type.Integer(),
  run_level: StringEnum(RUN_LEVELS),
  virt_mode: StringEnum(VIRT_MODES),
  interfaces: Type.Array(ConfigInterfaceView),
  helpers: Helpers,
  devices: DevicesView,
  root_device: Type.String(),
  // No initial RAM disk is offered.
  initrd: Type.Null(),
  created: Timestamp,
  updated: Timestamp,
});
export type Config = Static<typeof ConfigSchema>;
/** A config as it is kept (and a backup holds it): its interfaces as stored. */
export type StoredConfig = Omit<Config, 'interfaces'> & { interfaces: Interface[] };

const configFields = {
  kernel: Type.Optional(Type.String({ maxLength: 64 })),
  comments: Type.Optional(Nullable(Type.String({ maxLength: 65535 }))),
  memory_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: INT32_MAX })),
  run_level: Type.Optional(StringEnum(RUN_LEVELS)),
  virt_mode: Type.Optional(StringEnum(VIRT_MODES)),
  interfaces: Type.Optional(Interfaces),
  helpers: Type.Optional(Type.Partial(Helpers)),
  root_device: Type.Optional(RootDevice),
};

export const CreateConfigBody = Type.Object({ ...configFields, label: ConfigLabel, devices: DevicesBody });
export type CreateConfig = Omit<Static<typeof CreateConfigBody>, 'devices'> & { devices: DevicesBodyT };

export const UpdateConfigBody = Type.Object({
  ...configFields,
  label: Type.Optional(ConfigLabel),
  devices: Type.Optional(DevicesBody),
});
export type UpdateConfig = Omit<Static<typeof UpdateConfigBody>, 'devices'> & { devices?: DevicesBodyT };

export const ConfigParams = Type.Object({ nodeId: IntegerId, configId: IntegerId });
