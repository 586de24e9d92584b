import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import type { RegionTable } from '../catalog/catalog.table.ts';

export type RegionRow = Selectable<RegionTable>;

const FILTER: FilterSpec = {
  fields: {
    id: { column: 'id', type: 'string' },
    label: { column: 'label', type: 'string' },
    country: { column: 'country', type: 'string' },
    status: { column: 'status', type: 'string' },
    site_type: { column: 'site_type', type: 'string' },
  },
  defaultOrder: { column: 'sort', direction: 'asc' },
  tiebreak: 'id',
};

export function listRegions(db: Kysely<Database>, request: PageRequest) {
  return paginate(db.selectFrom('regions').selectAll(), request, FILTER);
}

export function findRegionById(db: Kysely<Database>, id: string): Promise<RegionRow | undefined> {
  return db.selectFrom('regions').selectAll().where('id', '=', id).executeTakeFirst();
}
