import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.ts';

/** The compute host of a node (null: none, or no such node). */
export async function findNodeHost(db: Kysely<Database>, nodeId: number): Promise<string | null> {
  const row = await db.selectFrom('nodes').select('host').where('id', '=', nodeId).executeTakeFirst();
  return row?.host ?? null;
}

/** Where a node is: its region and compute host. */
export async function findNodePlacement(
  db: Kysely<Database>,
  nodeId: number,
): Promise<{ region: string; host: string | null } | undefined> {
  return db.selectFrom('nodes').select(['region', 'host']).where('id', '=', nodeId).executeTakeFirst();
}

/** The compute host of the node a disk belongs to. */
export async function findDiskHost(db: Kysely<Database>, diskId: number): Promise<string | null> {
  const row = await db
    .selectFrom('disks')
    .innerJoin('nodes', 'nodes.id', 'disks.node_id')
    .select('nodes.host')
    .where('disks.id', '=', diskId)
    .executeTakeFirst();
  return row?.host ?? null;
}

/** How many nodes of each type are on each host among those in `statuses`'s complement (those holding a machine). */
export async function countNodesByHostAndType(
  db: Kysely<Database>,
  exceptStatuses: readonly string[],
  exceptNodeId: number | null,
): Promise<{ host: string; type: string; n: number }[]> {
  let query = db
    .selectFrom('nodes')
    .select(['host', 'type', db.fn.countAll<number | string>().as('n')])
    .where('host', 'is not', null)
    .where('status', 'not in', exceptStatuses)
    .groupBy(['host', 'type']);
  if (exceptNodeId !== null) query = query.where('id', '!=', exceptNodeId);
  const rows = await query.execute();
  return rows.map((r) => ({ host: r.host ?? '', type: r.type, n: Number(r.n) }));
}

/** The settled nodes of a host in `status`. */
export async function findSettledHostNodes(db: Kysely<Database>, host: string, status: string): Promise<number[]> {
  const rows = await db
    .selectFrom('nodes')
    .select('id')
    .where('host', '=', host)
    .where('status', '=', status)
    .where('busy', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}

/** Moves the settled nodes of a host from one status to another (status only); their ids. */
export async function setHostNodesStatus(
  db: Kysely<Database>,
  host: string,
  change: { from: string; to: string; updated: string; ids?: readonly number[] },
): Promise<number[]> {
  let query = db
    .updateTable('nodes')
    .set({ status: change.to, updated: change.updated })
    .where('host', '=', host)
    .where('status', '=', change.from)
    .where('busy', 'is', null);
  if (change.ids !== undefined) {
    if (change.ids.length === 0) return [];
    query = query.where('id', 'in', change.ids);
  }
  const rows = await query.returning('id').execute();
  return rows.map((r) => r.id);
}

/** The nodes among `ids` grouped by their compute host (null: none). */
export async function groupNodesByHost(db: Kysely<Database>, ids: readonly number[]): Promise<Map<string | null, number[]>> {
  const groups = new Map<string | null, number[]>();
  if (ids.length === 0) return groups;
  const rows = await db.selectFrom('nodes').select(['id', 'host']).where('id', 'in', ids).orderBy('id').execute();
  for (const row of rows) groups.set(row.host, [...(groups.get(row.host) ?? []), row.id]);
  return groups;
}

/** MB the disks of every node take together by their sizes, whether their files are written yet or not. */
export async function sumAllDiskSizes(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('disks')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('size'), eb.val(0)).as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** The same, per compute host of the disks' nodes (nodes on no host aside). */
export async function sumDiskSizesByHost(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('disks')
    .innerJoin('nodes', 'nodes.id', 'disks.node_id')
    .select(['nodes.host', (eb) => eb.fn.sum<number | string>('disks.size').as('total')])
    .where('nodes.host', 'is not', null)
    .groupBy('nodes.host')
    .execute();
  return new Map(rows.map((r) => [r.host ?? '', Number(r.total)]));
}
