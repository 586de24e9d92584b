import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import type { KernelTable } from '../catalog/catalog.table.ts';

export type KernelRow = Selectable<KernelTable>;

const FILTER: FilterSpec = {
  fields: {
    label: { column: 'label', type: 'string' },
    version: { column: 'version', type: 'string' },
    kvm: { column: 'kvm', type: 'boolean' },
    xen: { column: 'xen', type: 'boolean' },
    architecture: { column: 'architecture', type: 'string' },
    pvops: { column: 'pvops', type: 'boolean' },
    deprecated: { column: 'deprecated', type: 'boolean' },
  },
  defaultOrder: { column: 'sort', direction: 'asc' },
  tiebreak: 'id',
};

export function listKernels(db: Kysely<Database>, request: PageRequest) {
  return paginate(db.selectFrom('kernels').selectAll(), request, FILTER);
}

export function findKernelById(db: Kysely<Database>, id: string): Promise<KernelRow | undefined> {
  return db.selectFrom('kernels').selectAll().where('id', '=', id).executeTakeFirst();
}
