import { type Static, Type } from 'typebox';
import { IntegerId, StringEnum, Timestamp } from '../../http/schemas.ts';
import { PATTERN_REASON } from '../../http/validation.ts';
import { TagLabel } from '../nodes/node.schema.ts';

export const FIREWALL_PROTOCOLS = ['TCP', 'UDP', 'ICMP'] as const;
export const FIREWALL_STATUSES = ['enabled', 'disabled', 'deleted'] as const;
/** Rules across inbound and outbound, and addresses (ipv4 and ipv6 together) in one rule. */
export const MAX_RULES = 25;
export const MAX_RULE_ADDRESSES = 255;

const Policy = StringEnum(['ACCEPT', 'DROP'] as const);

/**
 * The reference's pattern cannot match any label (its `..` look-ahead matches every two characters);
 * this is what its description says: a letter or digit at both ends, only letters, digits, `-`, `_`
 * and `.`, never two of `-`, `_` and `.` in a row.
 */
export const FirewallLabel = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: '^[a-zA-Z0-9](?!.*[-_.]{2})[a-zA-Z0-9_.-]*[a-zA-Z0-9]$',
  [PATTERN_REASON]:
    'Must begin and end with a letter or digit and hold only letters, digits, -, _ and ., never two of -, _ and . in a row',
});

const Addresses = Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_RULE_ADDRESSES });

/** One rule as sent; ports, addresses and the limits across rules are checked in firewall-rules.ts. */
export const RuleInput = Type.Object({
  protocol: StringEnum(FIREWALL_PROTOCOLS),
  ports: Type.Optional(Type.String({ maxLength: 256 })),
  addresses: Type.Object({ ipv4: Type.Optional(Addresses), ipv6: Type.Optional(Addresses) }),
  action: Policy,
  label: Type.Optional(Type.String({ minLength: 3, maxLength: 32 })),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
export type Rule = Static<typeof RuleInput>;

const RuleList = Type.Array(RuleInput, { maxItems: MAX_RULES });

export const RulesSchema = Type.Object({
  inbound: Type.Array(RuleInput),
  outbound: Type.Array(RuleInput),
  inbound_policy: Policy,
  outbound_policy: Policy,
});
export type Ruleset = Static<typeof RulesSchema>;

/** A ruleset as shown: every rule with both address families, its version and a fingerprint of it. */
export const RulesViewSchema = Type.Object({
  ...RulesSchema.properties,
  version: Type.Integer(),
  fingerprint: Type.String(),
});
export type RulesView = Static<typeof RulesViewSchema>;

/** What a firewall is assigned to: a node (a node is no part of anything, so its parent is null). */
const DeviceEntity = Type.Object({
  id: Type.Integer(),
  type: StringEnum(['node'] as const),
  label: Type.String(),
  url: Type.String(),
  parent_entity: Type.Null(),
});
export type DeviceEntityT = Static<typeof DeviceEntity>;

export const FirewallSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  created: Timestamp,
  updated: Timestamp,
  status: StringEnum(FIREWALL_STATUSES),
  rules: RulesViewSchema,
  tags: Type.Array(Type.String()),
  entities: Type.Array(DeviceEntity),
});
export type Firewall = Static<typeof FirewallSchema>;

export const CreateFirewallBody = Type.Object({
  label: FirewallLabel,
  rules: Type.Object({
    inbound: Type.Optional(RuleList),
    outbound: Type.Optional(RuleList),
    inbound_policy: Policy,
    outbound_policy: Policy,
  }),
  devices: Type.Optional(Type.Object({ nodes: Type.Optional(Type.Array(IntegerId, { maxItems: 100 })) })),
  tags: Type.Optional(Type.Array(TagLabel, { maxItems: 100 })),
});
export type CreateFirewall = Static<typeof CreateFirewallBody>;

/** Devices and rules have their own operations; `deleted` is reached by delete only. */
export const UpdateFirewallBody = Type.Object({
  label: Type.Optional(FirewallLabel),
  tags: Type.Optional(Type.Array(TagLabel, { maxItems: 100 })),
  status: Type.Optional(StringEnum(['enabled', 'disabled'] as const)),
});
export type UpdateFirewall = Static<typeof UpdateFirewallBody>;

/** A rules PUT: the rule lists sent replace the old ones (one left out is empty); a policy left out stays. */
export const UpdateRulesBody = Type.Object({
  inbound: Type.Optional(RuleList),
  outbound: Type.Optional(RuleList),
  inbound_policy: Type.Optional(Policy),
  outbound_policy: Type.Optional(Policy),
});
export type UpdateRules = Static<typeof UpdateRulesBody>;

export const FirewallDeviceSchema = Type.Object({
  id: Type.Integer(),
  created: Timestamp,
  updated: Timestamp,
  entity: DeviceEntity,
});
export type FirewallDevice = Static<typeof FirewallDeviceSchema>;

export const CreateDeviceBody = Type.Object({ id: IntegerId, type: StringEnum(['node'] as const) });
export type CreateDevice = Static<typeof CreateDeviceBody>;

export const FirewallParams = Type.Object({ firewallId: IntegerId });
export const DeviceParams = Type.Object({ firewallId: IntegerId, deviceId: IntegerId });
