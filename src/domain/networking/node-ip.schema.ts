import { type Static, Type } from 'typebox';
import { IntegerId, Nullable, StringEnum } from '../../http/schemas.ts';
import { PATTERN_REASON } from '../../http/validation.ts';
import { Ipv6AddressSchema, PrivateIpv4Schema, PublicIpv4Schema, ReservedIpv4Schema } from './ip-address.schema.ts';
import { Ipv6RangeSchema } from './ipv6.schema.ts';

/** A node's addresses by kind. `global` lists the IPv6 ranges routed to the node (clients read a list). */
export const NodeIpsSchema = Type.Object({
  ipv4: Type.Object({
    public: Type.Array(PublicIpv4Schema),
    private: Type.Array(PrivateIpv4Schema),
    shared: Type.Array(PublicIpv4Schema),
    reserved: Type.Array(ReservedIpv4Schema),
    // VPCs are not offered: always empty.
    vpc: Type.Array(Type.Object({ address: Type.String() })),
  }),
  ipv6: Type.Object({
    link_local: Ipv6AddressSchema,
    slaac: Ipv6AddressSchema,
    global: Type.Array(Ipv6RangeSchema),
    vpc: Type.Array(Type.Object({ address: Type.String() })),
  }),
});
export type NodeIps = Static<typeof NodeIpsSchema>;

export const AllocateIpBody = Type.Object({ type: StringEnum(['ipv4'] as const), public: Type.Boolean() });
export type AllocateIp = Static<typeof AllocateIpBody>;

export const UpdateIpBody = Type.Object({
  // null puts a public IPv4 address back on its default name.
  rdns: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 254,
        pattern: '^(?=.{1,253}\\.?$)(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z]{2,63}\\.?$',
        [PATTERN_REASON]: 'Must be a fully qualified host name, such as host.example.com',
      }),
    ),
  ),
});
export type UpdateIp = Static<typeof UpdateIpBody>;

export const NodeIpParams = Type.Object({ nodeId: IntegerId, address: Type.String({ minLength: 1, maxLength: 64 }) });
