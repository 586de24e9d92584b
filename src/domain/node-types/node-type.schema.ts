import { type Static, Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.ts';
import { NODE_TYPE_CLASSES } from '../catalog/catalog.ts';

// The reference types prices as integers yet shows fractional examples (0.03); they are US dollars with cents and below.
const Price = Type.Object({ hourly: Type.Number(), monthly: Type.Number() });
/** A price that differs in one region; every region here has the type's own price, so the lists are empty. */
const RegionPrices = Type.Array(Type.Object({ id: Type.String(), hourly: Type.Number(), monthly: Type.Number() }));

export const NodeTypeSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  disk: Type.Integer(),
  class: StringEnum(NODE_TYPE_CLASSES),
  price: Price,
  region_prices: RegionPrices,
  addons: Type.Object({ backups: Type.Object({ price: Price, region_prices: RegionPrices }) }),
  network_out: Type.Integer(),
  memory: Type.Integer(),
  successor: Nullable(Type.String()),
  transfer: Type.Integer(),
  vcpus: Type.Integer(),
  gpus: Type.Integer(),
});
export type NodeType = Static<typeof NodeTypeSchema>;

export const NodeTypeParams = Type.Object({ typeId: Type.String({ minLength: 1, maxLength: 64 }) });
