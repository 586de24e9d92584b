import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { FilterSpec } from '../../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../../db/paginate.ts';
import { preparedStatement, rowArguments, rowsOf } from '../../../db/prepared.ts';
import { fail } from '../../../errors.ts';
import type { DiskTable } from './disk.table.ts';

export type DiskRow = Selectable<DiskTable>;

const FILTER: FilterSpec = {
  fields: {
    label: { column: 'disks.label', type: 'string' },
    size: { column: 'disks.size', type: 'integer' },
  },
  defaultOrder: { column: 'disks.id', direction: 'asc' },
  tiebreak: 'disks.id',
};

function disksOf(db: Kysely<Database>, accountId: number, nodeId: number) {
  return db.selectFrom('disks').selectAll('disks').where('disks.account_id', '=', accountId).where('disks.node_id', '=', nodeId);
}

export function listDisks(db: Kysely<Database>, accountId: number, nodeId: number, request: PageRequest): Promise<Page<DiskRow>> {
  return paginate(disksOf(db, accountId, nodeId), request, FILTER);
}

export function findDisks(db: Kysely<Database>, accountId: number, nodeId: number): Promise<DiskRow[]> {
  return disksOf(db, accountId, nodeId).orderBy('disks.id').execute();
}

export function findDisk(db: Kysely<Database>, accountId: number, nodeId: number, id: number): Promise<DiskRow | undefined> {
  return disksOf(db, accountId, nodeId).where('disks.id', '=', id).executeTakeFirst();
}

/** MB the node's disks take together. */
export async function sumDiskSizes(db: Kysely<Database>, accountId: number, nodeId: number): Promise<number> {
  const row = await db
    .selectFrom('disks')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), eb.val(0)).as('total'))
    .where('account_id', '=', accountId)
    .where('node_id', '=', nodeId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

const insertDiskRows = preparedStatement((db, args: Record<string, unknown>, shape) =>
  db
    .insertInto('disks')
    .values(rowsOf(args, shape) as Insertable<DiskTable>[])
    .returningAll(),
);

/** Inserts disks in one statement; their rows come back in the order given. */
export async function insertDisks(db: Kysely<Database>, values: readonly Insertable<DiskTable>[]): Promise<DiskRow[]> {
  if (values.length === 0) return [];
  const rows = await insertDiskRows(db, String(values.length), rowArguments(values));
  if (rows.length !== values.length) throw fail.internal();
  // Ids are given in the order the rows are inserted, which is the order of the values.
  return rows.sort((a, b) => a.id - b.id);
}

export function updateDiskRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<DiskTable>,
): Promise<DiskRow | undefined> {
  return db
    .updateTable('disks')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Marks every disk of the node that is still being written as ready. */
export async function markNodeDisksReady(
  db: Kysely<Database>,
  accountId: number,
  nodeId: number,
  updated: string,
): Promise<void> {
  await db
    .updateTable('disks')
    .set({ status: 'ready', updated })
    .where('account_id', '=', accountId)
    .where('node_id', '=', nodeId)
    .where('status', '=', 'not ready')
    .execute();
}

export async function deleteDiskRow(db: Kysely<Database>, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('disks').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Removes every disk of a node (a rebuild or an overwriting restore starts from none). */
export async function deleteDisksOfNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<void> {
  await db.deleteFrom('disks').where('account_id', '=', accountId).where('node_id', '=', nodeId).execute();
}
