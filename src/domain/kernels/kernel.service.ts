import type { Context } from '../../context.ts';
import { mapPage, type PageRequest } from '../../db/paginate.ts';
import { fail } from '../../errors.ts';
import { findKernelById, type KernelRow, listKernels } from './kernel.repository.ts';
import type { Kernel } from './kernel.schema.ts';

export function kernelRowToKernel(row: KernelRow): Kernel {
  return {
    id: row.id,
    label: row.label,
    version: row.version,
    kvm: Boolean(row.kvm),
    xen: Boolean(row.xen),
    architecture: row.architecture as Kernel['architecture'],
    pvops: Boolean(row.pvops),
    deprecated: Boolean(row.deprecated),
    built: row.built,
  };
}

export async function getKernels(ctx: Context, request: PageRequest) {
  return mapPage(await listKernels(ctx.db, request), kernelRowToKernel);
}

export async function getKernel(ctx: Context, id: string): Promise<Kernel> {
  const row = await findKernelById(ctx.db, id);
  if (!row) throw fail.notFound();
  return kernelRowToKernel(row);
}
