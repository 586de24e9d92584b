import type { JobContext } from '../../../jobs/handler.ts';
import type { OperationHandler } from '../../../jobs/operation.ts';
import { migrateMachine, rescueMachine, resizeMachine } from '../compute/machine-change-work.ts';
import { buildMachine } from '../compute/machine-work.ts';
import { dataDiskGrowth } from '../disks/data-disk-growth.ts';
import { markNodeDisksReady, updateDiskRow } from '../disks/disk.repository.ts';
import { jobTarget, nodeTransition } from '../node.jobs.ts';
import { findNode, updateNodeRow } from '../node.repository.ts';
import { NODE_OPS } from '../node-operations.ts';
import { moveNodeToRegion } from './region-move.ts';
import { RESIZING_STATUS } from './resize.service.ts';

/** Back to running or offline, as the node was before the operation took it down. */
const returnsTo = (job: JobContext) => (job.payload.returnsTo === 'running' ? 'running' : 'offline');

/** The new type takes effect (and the data disk grows, if asked) when a resize or mutate finishes. */
async function applyType(job: JobContext): Promise<void> {
  const { accountId, nodeId, now } = jobTarget(job);
  const node = await findNode(job.trx, accountId, nodeId);
  const type = job.ctx.catalog.type(String(job.payload.type));
  if (!node || !type) return;
  const growth = job.payload.autoResize !== false ? await dataDiskGrowth(job.trx, node, type.disk) : null;
  if (growth) await updateDiskRow(job.trx, accountId, growth.disk.id, { size: growth.sizeMb, updated: now });
  await updateNodeRow(job.trx, accountId, nodeId, { type: type.id });
}

/** A migration to another region finishes with the node there (region-move.ts). */
async function moveRegion(job: JobContext): Promise<void> {
  const { accountId, nodeId, now } = jobTarget(job);
  if (typeof job.payload.region !== 'string') return;
  const typeId = typeof job.payload.type === 'string' ? job.payload.type : null;
  await moveNodeToRegion(job.trx, job.ctx, { accountId, nodeId, regionId: job.payload.region, typeId, now });
}

async function disksWritten(job: JobContext): Promise<void> {
  const { accountId, nodeId, now } = jobTarget(job);
  await markNodeDisksReady(job.trx, accountId, nodeId, now);
}

export const nodeChangeOperations: readonly OperationHandler[] = [
  nodeTransition({
    kind: NODE_OPS.resize,
    transition: 'node_resize',
    from: RESIZING_STATUS,
    to: returnsTo,
    failTo: 'offline',
    finish: applyType,
    work: resizeMachine,
  }),
  nodeTransition({
    kind: NODE_OPS.mutate,
    transition: 'node_mutate',
    from: RESIZING_STATUS,
    to: returnsTo,
    failTo: 'offline',
    finish: applyType,
    work: resizeMachine,
  }),
  nodeTransition({
    kind: NODE_OPS.migrate,
    transition: 'node_migrate',
    from: 'migrating',
    to: returnsTo,
    failTo: 'offline',
    finish: moveRegion,
    work: migrateMachine,
  }),
  nodeTransition({
    kind: NODE_OPS.rebuild,
    transition: 'node_rebuild',
    from: 'rebuilding',
    to: (job) => (job.payload.booted === false ? 'offline' : 'running'),
    failTo: 'offline',
    finish: disksWritten,
    work: buildMachine,
  }),
  nodeTransition({
    kind: NODE_OPS.rescue,
    transition: 'node_rescue',
    from: 'rebooting',
    to: () => 'running',
    failTo: 'offline',
    work: rescueMachine,
  }),
];
