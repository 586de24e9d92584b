import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { lockRows } from '../../../db/row-locks.ts';
import type { JobHandler } from '../../../jobs/handler.ts';
import { enqueueJob } from '../../../jobs/queue.ts';
import type { DiskRow } from '../disks/disk.repository.ts';
import { nodePoweredOff } from '../lifecycle/node-faults.service.ts';
import { findNodeAnywhere, type NodeRow } from '../node.repository.ts';
import { diskKey, machineKey, nodeIdOfMachine, rescueDiskKey } from './compute-keys.ts';

/** The job kind the compute layer's events come in as, with the machine's `key` (the runtime enqueues them). */
const COMPUTE_EVENT_JOB = 'compute.event';
const DISCARD_JOB = 'node.discard';

/**
 * A deleted node's machine and disk files go in a job of their own, queued in the deletion's
 * transaction: the machine is stopped at once and every file removed, even after a crash.
 */
export async function discardMachine(
  db: Kysely<Database>,
  ctx: Context,
  node: NodeRow,
  disks: readonly DiskRow[],
): Promise<void> {
  if (ctx.compute === null) return;
  await enqueueJob(db, ctx.clock, {
    kind: DISCARD_JOB,
    accountId: node.account_id,
    payload: { machine: machineKey(node.id), disks: [...disks.map((d) => diskKey(d.id)), rescueDiskKey(node.id)] },
    // The files are on the node's host: its agent removes them.
    host: node.host,
  });
  ctx.wakeWorker();
}

const discard: JobHandler = {
  kind: DISCARD_JOB,
  parallel: true,
  async prepare({ ctx, payload }) {
    if (ctx.compute === null) return;
    await ctx.compute.destroy(String(payload.machine));
    for (const key of payload.disks as string[]) await ctx.compute.deleteDisk(key);
  },
  async run() {},
};

/**
 * What a machine did by itself. Powered off (the guest shut down, or its process ended): a running,
 * settled node goes offline and the watchdog may boot it; a node that an operation holds is that
 * operation's to settle (a shutdown waits for exactly this).
 */
const computeEvent: JobHandler = {
  kind: COMPUTE_EVENT_JOB,
  async run({ trx, ctx, payload }) {
    const nodeId = nodeIdOfMachine(String(payload.key));
    if (nodeId === null) return;
    await lockRows(trx, 'nodes', 'id', [nodeId]);
    const node = await findNodeAnywhere(trx, nodeId);
    if (node?.status !== 'running' || node.busy !== null) return;
    if (ctx.compute !== null && (await ctx.compute.state(machineKey(node.id))) === 'running') return;
    await nodePoweredOff(trx, ctx, node);
  },
};

export const machineJobs: readonly JobHandler[] = [discard, computeEvent];
