import { type Static, Type } from 'typebox';
import { INT32_MAX, IntegerId, Nullable, StringEnum } from '../http/schemas.ts';
import { TRANSITION_KINDS } from '../jobs/transitions.ts';

const RegionStatusEnum = StringEnum(['ok', 'outage'] as const);

export const TransitionParams = Type.Object({ kind: Type.String({ maxLength: 64 }) });
export const JobParams = Type.Object({ jobId: IntegerId });
export const NodeParams = Type.Object({ nodeId: IntegerId });
export const RegionParams = Type.Object({ regionId: Type.String({ maxLength: 64 }) });

export const TransitionBody = Type.Object(
  {
    seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 30 * 86400, description: 'duration on the service clock' })),
    mode: Type.Optional(StringEnum(['seconds', 'manual', 'default'] as const)),
  },
  { additionalProperties: false },
);
export type TransitionBodyT = Static<typeof TransitionBody>;

export const ClockAdvanceBody = Type.Object(
  { seconds: Type.Number({ exclusiveMinimum: 0, maximum: 10 * 365 * 86400 }) },
  { additionalProperties: false },
);

export const RequestFaultSchema = Type.Object({
  error_rate: Type.Number({ minimum: 0, maximum: 1, description: 'share of matching requests that fail' }),
  latency_ms: Type.Integer({ minimum: 0, maximum: 60_000, description: 'delay added to every matching request' }),
  match: Type.String({
    minLength: 1,
    maxLength: 256,
    description: '"[METHOD ]/path-glob" after /v4 (* matches anything), or "*"',
  }),
  status: Type.Union([Type.Literal(500), Type.Literal(503)]),
});

export const RequestFaultBody = Type.Partial(RequestFaultSchema, { additionalProperties: false });

export const RegionStatusBody = Type.Object({ status: RegionStatusEnum }, { additionalProperties: false });

export const TransitionSchema = Type.Object({
  kind: StringEnum(TRANSITION_KINDS),
  default_seconds: Type.Number(),
  mode: StringEnum(['default', 'seconds', 'manual'] as const),
  seconds: Nullable(Type.Number()),
  held: Type.Array(Type.Integer()),
});

export const TransitionList = Type.Object({ data: Type.Array(TransitionSchema) });

export const ReleasedSchema = Type.Object({ released: Type.Array(Type.Integer()), jobs_run: Type.Integer() });

export const ClockSchema = Type.Object({
  now: Type.String(),
  offset_seconds: Type.Number(),
  logical: Type.Boolean(),
});

export const ClockAdvanced = Type.Object({ ...ClockSchema.properties, jobs_run: Type.Integer() });

export const FaultsSchema = Type.Object({
  requests: Nullable(RequestFaultSchema),
  regions: Type.Array(Type.Object({ id: Type.String(), status: RegionStatusEnum })),
});

export const PowerOffSchema = Type.Object({ status: Type.String(), watchdog_boot: Type.Boolean() });
export const MaintenanceSchema = Type.Object({ status: Type.String() });

const PublicIpv4Allowance = Type.Integer({
  minimum: 1,
  maximum: 256,
  description: 'public IPv4 addresses the node may hold in all (1, the one it is created with, unless raised)',
});
export const IpAllowanceBody = Type.Object({ public_ipv4: PublicIpv4Allowance }, { additionalProperties: false });
export const IpAllowanceSchema = Type.Object({ node_id: Type.Integer(), public_ipv4: PublicIpv4Allowance });

export const AddIpv6RangeBody = Type.Object(
  {
    node_id: Type.Integer({ minimum: 1, maximum: INT32_MAX, description: 'the node the range is routed to (any account)' }),
    prefix_length: Type.Optional(
      Type.Union([Type.Literal(64), Type.Literal(56)], { description: 'a /64 (the default) or a /56', default: 64 }),
    ),
  },
  { additionalProperties: false },
);
export const AddIpv6PoolBody = Type.Object(
  {
    account_id: Type.Integer({ minimum: 1, maximum: INT32_MAX, description: 'the account the pool is for' }),
    region: Type.String({ minLength: 1, maxLength: 64, description: 'the region whose prefix the /124 is cut from' }),
  },
  { additionalProperties: false },
);
export const Ipv6BlockParams = Type.Object({
  range: Type.String({ minLength: 1, maxLength: 64, description: 'the first address of the pool or range' }),
});

export const ResetSchema = Type.Object({
  bootstrap_token: Type.Optional(Type.String()),
  bootstrap_password: Type.Optional(Type.String()),
});
export const RestoreSchema = Type.Object({ tables: Type.Integer(), rows: Type.Integer() });

export const InfoSchema = Type.Object({
  version: Type.String(),
  database: Type.Object({ kind: Type.String(), location: Type.String() }),
  uptime_seconds: Nullable(Type.Integer()),
  seed: Nullable(Type.Integer()),
  clock: ClockSchema,
  counts: Type.Record(Type.String(), Type.Integer()),
  jobs: Type.Object({ queued: Type.Integer(), held: Type.Integer(), failed: Type.Integer() }),
  faults: FaultsSchema,
  transitions: Type.Array(TransitionSchema),
});

export const NodePortsSchema = Type.Object({
  node_id: Type.Integer(),
  ports: Type.Array(
    Type.Object({
      guest: Type.Integer({ description: "the node's TCP port" }),
      host: Type.Integer({ description: 'the host port forwarded to it' }),
      address: Type.String({ description: 'the host address the port listens on' }),
    }),
    { description: 'empty in bridge networking, where the node is reached at its own addresses' },
  ),
});

export const NodeFirewallSchema = Type.Object({
  node_id: Type.Integer(),
  firewall_id: Nullable(Type.Integer({ description: "the node's enabled firewall; null when it has none" })),
  ruleset: Type.String({ description: 'the nftables ruleset the node filters with (`nft -f` loads it)' }),
});

export const ComputeHostsSchema = Type.Object({
  data: Type.Array(
    Type.Object({
      name: Type.String({ description: "the agent's --host name" }),
      regions: Nullable(Type.Array(Type.String({ description: 'a region it serves' }))),
      live: Type.Boolean({ description: 'whether it reported within CUMULO_AGENT_OFFLINE_MS' }),
      last_heartbeat: Type.String(),
      seconds_silent: Type.Integer(),
      memory_total_mb: Type.Integer(),
      memory_free_mb: Type.Integer(),
      disk_free_mb: Type.Integer(),
      machines: Type.Integer({ description: 'machines running on it' }),
      started: Type.String({ description: 'when its process started' }),
    }),
  ),
});
