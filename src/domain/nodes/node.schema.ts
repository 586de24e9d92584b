import { type Static, Type } from 'typebox';
import { INT32_MAX, IntegerId, Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { PATTERN_REASON } from '../../http/validation.ts';
import { Interfaces } from './configs/config.schema.ts';

export const NODE_STATUSES = [
  'running',
  'offline',
  'booting',
  'rebooting',
  'shutting_down',
  'provisioning',
  'deleting',
  'migrating',
  'rebuilding',
  'cloning',
  'restoring',
  'stopped',
] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

export const BACKUP_DAYS = ['Scheduling', 'Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export const BACKUP_WINDOWS = [
  'Scheduling',
  'W0',
  'W2',
  'W4',
  'W6',
  'W8',
  'W10',
  'W12',
  'W14',
  'W16',
  'W18',
  'W20',
  'W22',
] as const;

/**
 * The reference's label pattern cannot match any label (its `..` look-ahead matches every two
 * characters); this is its intent: a letter first, then letters, digits, `-`, `_` and `.`, never two
 * of `-`, `_` and `.` in a row.
 */
export const NodeLabel = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: '^[a-zA-Z](?!.*[-_.]{2})[a-zA-Z0-9_.-]*$',
  [PATTERN_REASON]: 'Must begin with a letter and hold only letters, digits, -, _ and ., never two of -, _ and . in a row',
});

export const TagLabel = Type.String({ minLength: 3, maxLength: 50 });
export const RootPass = Type.String({ minLength: 7, maxLength: 128 });

const Alerts = Type.Object({
  cpu: Type.Integer(),
  network_in: Type.Integer(),
  network_out: Type.Integer(),
  transfer_quota: Type.Integer(),
  io: Type.Integer(),
  // Alert definitions of a monitoring service this one does not offer: none.
  system_alerts: Type.Array(Type.Integer()),
  user_alerts: Type.Array(Type.Integer()),
});

const Schedule = Type.Object({
  day: Nullable(StringEnum(BACKUP_DAYS)),
  window: Nullable(StringEnum(BACKUP_WINDOWS)),
});

export const NodeSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  region: Type.String(),
  image: Nullable(Type.String()),
  type: Type.String(),
  group: Type.String(),
  tags: Type.Array(Type.String()),
  status: StringEnum(NODE_STATUSES),
  hypervisor: StringEnum(['kvm'] as const),
  created: Timestamp,
  updated: Timestamp,
  ipv4: Type.Array(Type.String()),
  ipv6: Nullable(Type.String()),
  specs: Type.Object({
    disk: Type.Integer(),
    memory: Type.Integer(),
    vcpus: Type.Integer(),
    transfer: Type.Integer(),
    gpus: Type.Integer(),
    accelerated_devices: Type.Integer(),
  }),
  alerts: Alerts,
  backups: Type.Object({
    enabled: Type.Boolean(),
    schedule: Schedule,
    // null until a backup has succeeded.
    last_successful: Nullable(Timestamp),
    // Whether a backup can be restored now: the service is on and one has succeeded.
    available: Type.Boolean(),
  }),
  watchdog_enabled: Type.Boolean(),
  // Fields of later revisions that clients read, with what this service offers: no placement groups,
  // clusters, user data, disk encryption, locks or maintenance choices; configs hold the interfaces.
  site_type: Type.String(),
  host_uuid: Type.String(),
  has_user_data: Type.Boolean(),
  placement_group: Type.Null(),
  disk_encryption: StringEnum(['enabled', 'disabled'] as const),
  lke_cluster_id: Type.Null(),
  capabilities: Type.Array(Type.String()),
  interface_generation: StringEnum(['legacy_config'] as const),
  maintenance_policy: Type.String(),
  locks: Type.Array(Type.String()),
});
export type Node = Static<typeof NodeSchema>;

/** The fields that deploy an image onto a disk, in node create and disk create alike. */
export const deployFields = {
  image: Type.Optional(Nullable(Type.String({ maxLength: 128 }))),
  root_pass: Type.Optional(RootPass),
  authorized_keys: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  authorized_users: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
  stackscript_id: Type.Optional(Nullable(IntegerId)),
  stackscript_data: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
};

export const CreateNodeBody = Type.Object({
  region: Type.String({ minLength: 1, maxLength: 64 }),
  type: Type.String({ minLength: 1, maxLength: 64 }),
  label: Type.Optional(NodeLabel),
  group: Type.Optional(Type.String({ maxLength: 50 })),
  tags: Type.Optional(Type.Array(TagLabel, { maxItems: 100 })),
  ...deployFields,
  backup_id: Type.Optional(Nullable(IntegerId)),
  backups_enabled: Type.Optional(Type.Boolean()),
  booted: Type.Optional(Type.Boolean()),
  private_ip: Type.Optional(Type.Boolean()),
  swap_size: Type.Optional(Type.Integer({ minimum: 0, maximum: INT32_MAX })),
  interfaces: Type.Optional(Interfaces),
  // Assigned to the new node (the live service takes it); null: none.
  firewall_id: Type.Optional(Nullable(IntegerId)),
});
export type CreateNode = Static<typeof CreateNodeBody>;

/** Only these fields change; everything else a client sends back (status, specs, ...) is ignored. */
export const UpdateNodeBody = Type.Object({
  label: Type.Optional(NodeLabel),
  group: Type.Optional(Type.String({ maxLength: 50 })),
  tags: Type.Optional(Type.Array(TagLabel, { maxItems: 100 })),
  watchdog_enabled: Type.Optional(Type.Boolean()),
  alerts: Type.Optional(
    Type.Partial(
      Type.Object({
        cpu: Type.Integer({ minimum: 0, maximum: INT32_MAX }),
        network_in: Type.Integer({ minimum: 0, maximum: INT32_MAX }),
        network_out: Type.Integer({ minimum: 0, maximum: INT32_MAX }),
        transfer_quota: Type.Integer({ minimum: 0, maximum: 100 }),
        io: Type.Integer({ minimum: 0, maximum: INT32_MAX }),
        // Read-only and ignored, as a node read and sent back holds them.
        system_alerts: Type.Array(Type.Integer({ minimum: 0, maximum: INT32_MAX }), { maxItems: 100 }),
        user_alerts: Type.Array(Type.Integer({ minimum: 0, maximum: INT32_MAX }), { maxItems: 100 }),
      }),
    ),
  ),
  // `enabled`, `last_successful` and `available` are read-only here and ignored (clients send back the node they read).
  backups: Type.Optional(
    Type.Object({
      schedule: Type.Optional(Type.Partial(Schedule)),
      enabled: Type.Optional(Type.Boolean()),
      last_successful: Type.Optional(Nullable(Type.String())),
      available: Type.Optional(Type.Boolean()),
    }),
  ),
});
export type UpdateNode = Static<typeof UpdateNodeBody>;

export const NodeParams = Type.Object({ nodeId: IntegerId });

export const BootBody = Type.Object({ config_id: Type.Optional(Nullable(IntegerId)) });
export type Boot = Static<typeof BootBody>;
