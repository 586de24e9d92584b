import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { NodeSampleTable, NodeTransferMonthTable } from './node-sample.table.ts';

/** Inserts a sample; one at the same moment already there is left as it is. */
export async function insertNodeSample(db: Kysely<Database>, row: NodeSampleTable): Promise<void> {
  await db
    .insertInto('node_samples')
    .values(row)
    .onConflict((oc) => oc.columns(['node_id', 'at']).doNothing())
    .execute();
}

/** Each node's latest sample, of those that have one. */
export function findLatestNodeSamples(db: Kysely<Database>, nodeIds: readonly number[]): Promise<NodeSampleTable[]> {
  if (nodeIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('node_samples as s')
    .selectAll('s')
    .where('s.node_id', 'in', nodeIds)
    .where((eb) =>
      eb(
        's.at',
        '=',
        eb
          .selectFrom('node_samples as l')
          .select((l) => l.fn.max('l.at').as('at'))
          .whereRef('l.node_id', '=', 's.node_id'),
      ),
    )
    .execute();
}

/** The nodes' samples taken after `afterMs` and up to `toMs`, by node and time. */
export function findNodeSamples(
  db: Kysely<Database>,
  nodeIds: readonly number[],
  afterMs: number,
  toMs: number,
): Promise<NodeSampleTable[]> {
  if (nodeIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('node_samples')
    .selectAll()
    .where('node_id', 'in', nodeIds)
    .where('at', '>', afterMs)
    .where('at', '<=', toMs)
    .orderBy('node_id')
    .orderBy('at')
    .execute();
}

export async function deleteNodeSamplesBefore(db: Kysely<Database>, beforeMs: number): Promise<void> {
  await db.deleteFrom('node_samples').where('at', '<', beforeMs).execute();
}

/** Adds bytes to a node's month, which starts at 0. */
export async function addNodeTransfer(db: Kysely<Database>, row: NodeTransferMonthTable): Promise<void> {
  await db
    .insertInto('node_transfer_months')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['node_id', 'year', 'month']).doUpdateSet((eb) => ({
        bytes_in: eb(eb.ref('node_transfer_months.bytes_in'), '+', eb.ref('excluded.bytes_in')),
        bytes_out: eb(eb.ref('node_transfer_months.bytes_out'), '+', eb.ref('excluded.bytes_out')),
      })),
    )
    .execute();
}

export function findNodeTransferMonth(
  db: Kysely<Database>,
  nodeId: number,
  year: number,
  month: number,
): Promise<NodeTransferMonthTable | undefined> {
  return db
    .selectFrom('node_transfer_months')
    .selectAll()
    .where('node_id', '=', nodeId)
    .where('year', '=', year)
    .where('month', '=', month)
    .executeTakeFirst();
}
