import { type Static, Type } from 'typebox';
import { StringEnum, Timestamp } from '../../http/schemas.ts';
import { KERNEL_ARCHITECTURES } from '../catalog/catalog.ts';

export const KernelSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  version: Type.String(),
  kvm: Type.Boolean(),
  xen: Type.Boolean(),
  architecture: StringEnum(KERNEL_ARCHITECTURES),
  pvops: Type.Boolean(),
  deprecated: Type.Boolean(),
  built: Timestamp,
});
export type Kernel = Static<typeof KernelSchema>;

/** Kernel ids hold a slash (`node/latest-64bit`); see slashIdParam. */
export const KernelParams = Type.Object({ kernelId: Type.String({ minLength: 1, maxLength: 128 }) });
