import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { lockName } from '../../../db/row-locks.ts';
import { fail } from '../../../errors.ts';

/** Nodes in these statuses hold no machine (and no memory). */
const POWERED_OFF = ['offline', 'stopped'];

/** Memory (MB) the machines of every node that is up or on its way up take, by their types. */
async function memoryInUse(db: Kysely<Database>, ctx: Context, exceptNodeId: number | null): Promise<number> {
  let query = db
    .selectFrom('nodes')
    .select(['type', db.fn.countAll<number | string>().as('n')])
    .where('status', 'not in', POWERED_OFF)
    .groupBy('type');
  if (exceptNodeId !== null) query = query.where('id', '!=', exceptNodeId);
  const rows = await query.execute();
  return rows.reduce((sum, row) => sum + (ctx.catalog.type(row.type)?.memory ?? 0) * Number(row.n), 0);
}

/**
 * With real nodes, a node of this type may come up only if its memory fits in what the operator
 * gives nodes (CUMULO_COMPUTE_MEMORY) beside every other node that is up: a 400 otherwise, before
 * anything is written. Call in the transaction that then marks the node as coming up; concurrent
 * callers take turns, so two boots never both take the last memory. Simulated nodes take none.
 */
export async function assertMemoryFits(
  db: Kysely<Database>,
  ctx: Context,
  spec: { typeId: string; nodeId: number | null },
): Promise<void> {
  if (ctx.compute === null) return;
  await lockName(db, 'compute-memory');
  const needed = ctx.catalog.type(spec.typeId)?.memory ?? 0;
  const used = await memoryInUse(db, ctx, spec.nodeId);
  const total = ctx.config.computeMemoryMb;
  if (used + needed > total) {
    throw fail.badRequest(
      `Not enough memory for this node: it needs ${needed} MB and ${Math.max(0, total - used)} MB of the host's ${total} MB for nodes is free`,
      'type',
    );
  }
}

/**
 * With real nodes, disks of `sizeMb` in all must fit in the free space of the host's storage, as if
 * written whole (a sparse disk may grow to its size): a 400 on `field` otherwise, before anything is written.
 */
export async function assertDiskFits(ctx: Context, sizeMb: number, field: string): Promise<void> {
  if (ctx.compute === null || (await ctx.compute.diskFits(sizeMb))) return;
  throw fail.badRequest(`Not enough free storage on the host for ${sizeMb} MB of disks`, field);
}
