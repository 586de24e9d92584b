import { type Static, Type } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';

/** A VLAN of the account: the nodes with an interface on it (ids) in its region. */
export const VlanSchema = Type.Object({
  label: Type.String(),
  region: Type.String(),
  nodes: Type.Array(Type.Integer()),
  created: Timestamp,
});
export type Vlan = Static<typeof VlanSchema>;
