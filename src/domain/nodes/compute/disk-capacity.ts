import type { Kysely } from 'kysely';
import { hostDiskLeftMb, listHosts } from '../../../compute/agents/host-registry.ts';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { lockName } from '../../../db/row-locks.ts';
import { fail } from '../../../errors.ts';
import { CAPACITY_LOCK, onAgents } from './host-capacity.ts';
import { findNodePlacement, sumAllDiskSizes, sumDiskSizesByHost } from './node-host.repository.ts';

/** With agents: the disks must fit on the host of node `nodeId`, by its agent's last report. */
async function assertHostDiskFits(db: Kysely<Database>, ctx: Context, spec: { sizeMb: number; field?: string; nodeId: number }) {
  const host = (await findNodePlacement(db, spec.nodeId))?.host ?? null;
  const report = host === null ? undefined : (await listHosts(db)).find((h) => h.name === host);
  if (report === undefined) return;
  const left = hostDiskLeftMb(report, await sumDiskSizesByHost(db), ctx.config.diskOvercommit);
  if (left >= spec.sizeMb) return;
  throw fail.badRequest(
    `Not enough free storage on the node's host ${report.name} for ${spec.sizeMb} MB of disks: ${Math.max(0, left)} MB is left for disks`,
    spec.field,
  );
}

/**
 * With real nodes, new disks of `sizeMb` in all may be promised only if the sizes of every disk on
 * the host (each node's, written or not, sparse or not: a disk may grow to its size) and theirs fit
 * in the host's storage for disks times CUMULO_DISK_OVERCOMMIT: a 400 on `field` otherwise. Call in
 * the transaction that then writes the disks' rows, before it writes them: concurrent callers take
 * turns, so two requests never both take the last room. With agents: on the host of node `nodeId`
 * by its agent's report; a new node's room (no `nodeId`) is its placement's to find.
 */
export async function assertDiskFits(
  db: Kysely<Database>,
  ctx: Context,
  spec: { sizeMb: number; field?: string; nodeId?: number },
): Promise<void> {
  if (ctx.compute === null || spec.sizeMb <= 0) return;
  await lockName(db, CAPACITY_LOCK);
  if (onAgents(ctx)) {
    if (spec.nodeId !== undefined) await assertHostDiskFits(db, ctx, { ...spec, nodeId: spec.nodeId });
    return;
  }
  const room = Math.floor((await ctx.compute.diskCapacityMb()) * ctx.config.diskOvercommit);
  const promised = await sumAllDiskSizes(db);
  if (promised + spec.sizeMb <= room) return;
  throw fail.badRequest(
    `Not enough free storage on the host for ${spec.sizeMb} MB of disks: its disks take ${promised} MB of the ${room} MB it has for them`,
    spec.field,
  );
}
