import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import type { NodeTypeTable } from '../catalog/catalog.table.ts';

export type NodeTypeRow = Selectable<NodeTypeTable>;

const FILTER: FilterSpec = {
  fields: {
    label: { column: 'label', type: 'string' },
    class: { column: 'class', type: 'string' },
    disk: { column: 'disk', type: 'integer' },
    memory: { column: 'memory', type: 'integer' },
    vcpus: { column: 'vcpus', type: 'integer' },
    gpus: { column: 'gpus', type: 'integer' },
    transfer: { column: 'transfer', type: 'integer' },
    network_out: { column: 'network_out', type: 'integer' },
  },
  defaultOrder: { column: 'sort', direction: 'asc' },
  tiebreak: 'id',
};

export function listNodeTypes(db: Kysely<Database>, request: PageRequest) {
  return paginate(db.selectFrom('node_types').selectAll(), request, FILTER);
}

export function findNodeTypeById(db: Kysely<Database>, id: string): Promise<NodeTypeRow | undefined> {
  return db.selectFrom('node_types').selectAll().where('id', '=', id).executeTakeFirst();
}
