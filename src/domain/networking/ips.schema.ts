import { type Static, Type } from 'typebox';
import { IntegerId, StringEnum } from '../../http/schemas.ts';

export const AllocateAccountIpBody = Type.Object({
  type: StringEnum(['ipv4'] as const),
  public: Type.Boolean(),
  node_id: IntegerId,
});
export type AllocateAccountIp = Static<typeof AllocateAccountIpBody>;

export const AddressParams = Type.Object({ address: Type.String({ minLength: 1, maxLength: 64 }) });
