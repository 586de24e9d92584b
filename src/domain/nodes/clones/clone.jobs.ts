import type { JobContext } from '../../../jobs/handler.ts';
import type { OperationHandler } from '../../../jobs/operation.ts';
import { copyNodeDisks } from '../compute/machine-work.ts';
import { markNodeDisksReady } from '../disks/disk.repository.ts';
import { jobTarget } from '../node.jobs.ts';
import { releaseNode } from '../node.repository.ts';
import { NODE_OPS } from '../node-operations.ts';
import { releaseCloneSlot } from './clone.repository.ts';
import { CLONE_BUSY } from './clone.service.ts';

/** Ends a clone either way: the target leaves `cloning` and the source counts one clone fewer. */
async function endClone(job: JobContext, written: boolean): Promise<void> {
  const { accountId, nodeId: sourceId, now } = jobTarget(job);
  const targetId = Number(job.payload.targetId);
  if (written) await markNodeDisksReady(job.trx, accountId, targetId, now);
  const to = String(job.payload.returnsTo ?? 'offline');
  await releaseNode(job.trx, accountId, targetId, { kind: CLONE_BUSY, from: 'cloning', to, updated: now });
  await releaseCloneSlot(job.trx, accountId, sourceId);
}

/** The operation runs on the source (its event); the target is named in the payload. */
export const cloneOperation: OperationHandler = {
  kind: NODE_OPS.clone,
  transition: 'node_clone',
  work: copyNodeDisks,
  finish: (job) => endClone(job, true),
  fail: (job) => endClone(job, false),
};
