import { type Static, Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';

export const IP_ADDRESS_TYPES = ['ipv4', 'ipv6', 'ipv6/pool', 'ipv6/range'] as const;

const common = {
  address: Type.String(),
  subnet_mask: Type.String(),
  prefix: Type.Integer(),
  public: Type.Boolean(),
  node_id: Type.Integer(),
  region: Type.String(),
};

/** Fields of later revisions an address shows: VPCs and reservations are not offered; the node that holds it. */
const later = {
  interface_id: Type.Null(),
  vpc_nat_1_1: Type.Null(),
  reserved: Type.Boolean(),
  assigned_entity: Nullable(
    Type.Object({ id: Type.Integer(), type: StringEnum(['node'] as const), label: Type.String(), url: Type.String() }),
  ),
};

/** One address as the API shows it: public and private IPv4, SLAAC and link-local IPv6 alike. */
export const IpAddressSchema = Type.Object({
  ...common,
  // null for an address no node holds, as the live service shows it (a node's own always have it).
  node_id: Nullable(Type.Integer()),
  ...later,
  // Private addresses have no gateway.
  gateway: Nullable(Type.String()),
  type: StringEnum(IP_ADDRESS_TYPES),
  // Only public addresses have reverse DNS; a public IPv4 address always has a name (a default one at first).
  rdns: Nullable(Type.String()),
});
export type IpAddress = Static<typeof IpAddressSchema>;
/** One of a node's own addresses (GET /node/instances/{nodeId}/ips/...): always held by it. */
export const NodeIpAddressSchema = Type.Object({ ...IpAddressSchema.properties, node_id: Type.Integer() });
export type NodeIpAddress = Static<typeof NodeIpAddressSchema>;

/** A public IPv4 address, which always has a gateway and a reverse DNS name. */
const publicIpv4 = {
  ...common,
  gateway: Nullable(Type.String()),
  type: StringEnum(IP_ADDRESS_TYPES),
  rdns: Type.String(),
};
export const PublicIpv4Schema = Type.Object({ ...publicIpv4, ...later });
/** A reserved address (never one here: reserving has no operation in this API). */
export const ReservedIpv4Schema = Type.Object(publicIpv4);

/** A private IPv4 address: no gateway, no reverse DNS. */
export const PrivateIpv4Schema = Type.Object({
  ...common,
  ...later,
  gateway: Nullable(Type.String()),
  type: Type.String(),
  rdns: Nullable(Type.String()),
});

/** A SLAAC or link-local IPv6 address: the gateway is the router's link-local address. */
export const Ipv6AddressSchema = Type.Object({
  ...common,
  ...later,
  gateway: Type.String(),
  type: Type.String(),
  rdns: Nullable(Type.String()),
});
