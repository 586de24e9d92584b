import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { JobContext } from '../../../jobs/handler.ts';
import type { OperationHandler } from '../../../jobs/operation.ts';
import { moveNodeAddresses } from '../../networking/node-addresses.service.ts';
import { buildMachine } from '../compute/machine-work.ts';
import { findConfigs } from '../configs/config.repository.ts';
import type { Interface } from '../configs/config.schema.ts';
import { findDisks, markNodeDisksReady, updateDiskRow } from '../disks/disk.repository.ts';
import { jobTarget, nodeTransition } from '../node.jobs.ts';
import { findNode, type NodeRow, updateNodeRow } from '../node.repository.ts';
import { attachVlans } from '../node-interfaces.ts';
import { NODE_OPS } from '../node-operations.ts';
import { RESIZING_STATUS } from './resize.service.ts';

/** Back to running or offline, as the node was before the operation took it down. */
const returnsTo = (job: JobContext) => (job.payload.returnsTo === 'running' ? 'running' : 'offline');

/** With one data disk (swap aside), the disk grows into the space a larger type adds. */
async function growDataDisk(db: Kysely<Database>, node: NodeRow, capacity: number, now: string): Promise<void> {
  const disks = await findDisks(db, node.account_id, node.id);
  const data = disks.filter((d) => d.filesystem !== 'swap');
  const [only] = data;
  if (!only || data.length !== 1) return;
  const others = disks.reduce((sum, d) => sum + d.size, 0) - only.size;
  if (capacity - others > only.size) await updateDiskRow(db, node.account_id, only.id, { size: capacity - others, updated: now });
}

/** The new type takes effect (and the data disk grows, if asked) when a resize or mutate finishes. */
async function applyType(job: JobContext): Promise<void> {
  const { accountId, nodeId, now } = jobTarget(job);
  const node = await findNode(job.trx, accountId, nodeId);
  const type = job.ctx.catalog.type(String(job.payload.type));
  if (!node || !type) return;
  if (job.payload.autoResize !== false) await growDataDisk(job.trx, node, type.disk, now);
  await updateNodeRow(job.trx, accountId, nodeId, { type: type.id });
}

/**
 * A migration to another region finishes with the node there: its addresses go back to the old
 * region's pools and it gets new ones (a private address again if it had one), its configs' VLANs
 * are attached in the new region, and an upgrade's type takes effect.
 */
async function moveRegion(job: JobContext): Promise<void> {
  const { accountId, nodeId, now } = jobTarget(job);
  const region = typeof job.payload.region === 'string' ? job.ctx.catalog.region(job.payload.region) : undefined;
  const node = await findNode(job.trx, accountId, nodeId);
  if (!region || !node) return;
  const ipv6 = await moveNodeAddresses(job.trx, job.ctx, { accountId, nodeId }, region);
  for (const config of await findConfigs(job.trx, accountId, nodeId)) {
    await attachVlans(job.trx, accountId, region.id, JSON.parse(config.interfaces) as Interface[], now);
  }
  await updateNodeRow(job.trx, accountId, nodeId, { region: region.id, ipv6, type: String(job.payload.type ?? node.type) });
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
  }),
  nodeTransition({
    kind: NODE_OPS.mutate,
    transition: 'node_mutate',
    from: RESIZING_STATUS,
    to: returnsTo,
    failTo: 'offline',
    finish: applyType,
  }),
  nodeTransition({
    kind: NODE_OPS.migrate,
    transition: 'node_migrate',
    from: 'migrating',
    to: returnsTo,
    failTo: 'offline',
    finish: moveRegion,
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
  nodeTransition({ kind: NODE_OPS.rescue, transition: 'node_rescue', from: 'rebooting', to: () => 'running', failTo: 'offline' }),
];
