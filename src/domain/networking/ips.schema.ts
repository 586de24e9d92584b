import { type Static, Type } from 'typebox';
import { IntegerId, StringEnum } from '../../http/schemas.ts';

export const AllocateAccountIpBody = Type.Object({
  type: StringEnum(['ipv4'] as const),
  public: Type.Boolean(),
  node_id: IntegerId,
});
export type AllocateAccountIp = Static<typeof AllocateAccountIpBody>;

export const AddressParams = Type.Object({ address: Type.String({ minLength: 1, maxLength: 64 }) });

const Ipv4Text = Type.String({ minLength: 1, maxLength: 64 });

export const AssignIpsBody = Type.Object({
  region: Type.String({ minLength: 1, maxLength: 64 }),
  assignments: Type.Array(Type.Object({ address: Ipv4Text, node_id: IntegerId }), { minItems: 1, maxItems: 1000 }),
});
export type AssignIps = Static<typeof AssignIpsBody>;

/** The whole list of addresses shared with the node: an empty list ends every share it has. */
export const ShareIpsBody = Type.Object({
  node_id: IntegerId,
  ips: Type.Array(Ipv4Text, { maxItems: 1000 }),
});
export type ShareIps = Static<typeof ShareIpsBody>;
