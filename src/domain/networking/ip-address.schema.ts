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

/** One address as the API shows it: public and private IPv4, SLAAC and link-local IPv6 alike. */
export const IpAddressSchema = Type.Object({
  ...common,
  // Private addresses have no gateway.
  gateway: Nullable(Type.String()),
  type: StringEnum(IP_ADDRESS_TYPES),
  // Only public addresses have reverse DNS; a public IPv4 address always has a name (a default one at first).
  rdns: Nullable(Type.String()),
});
export type IpAddress = Static<typeof IpAddressSchema>;

/** A public IPv4 address, which always has a gateway and a reverse DNS name. */
export const PublicIpv4Schema = Type.Object({
  ...common,
  gateway: Nullable(Type.String()),
  type: StringEnum(IP_ADDRESS_TYPES),
  rdns: Type.String(),
});

/** A private IPv4 address: no gateway, no reverse DNS. */
export const PrivateIpv4Schema = Type.Object({
  ...common,
  gateway: Nullable(Type.String()),
  type: Type.String(),
  rdns: Nullable(Type.String()),
});

/** A SLAAC or link-local IPv6 address: the gateway is the router's link-local address. */
export const Ipv6AddressSchema = Type.Object({
  ...common,
  gateway: Type.String(),
  type: Type.String(),
  rdns: Nullable(Type.String()),
});
