import type { JobContext } from '../../../jobs/handler.ts';
import type { OperationHandler, WorkContext } from '../../../jobs/operation.ts';
import type { TransitionKind } from '../../../jobs/transitions.ts';
import { resizeDiskFiles, writeDiskRootPassword } from '../compute/disk-work.ts';
import { copyDisk, makeDisk, removeDisk } from '../compute/machine-work.ts';
import { findConfigs } from '../configs/config.repository.ts';
import { removeDiskFromConfigs } from '../configs/config.service.ts';
import { jobTarget } from '../node.jobs.ts';
import { findNode, releaseNode, updateNodeRow } from '../node.repository.ts';
import { NODE_OPS } from '../node-operations.ts';
import { deleteDiskRow, findDisk, updateDiskRow } from './disk.repository.ts';

/** The busy marker each disk operation puts on its node (see disk.service.ts and disk-actions.service.ts). */
const BUSY = {
  [NODE_OPS.diskCreate]: 'disk_create',
  [NODE_OPS.diskClone]: 'disk_clone',
  [NODE_OPS.diskResize]: 'disk_resize',
  [NODE_OPS.diskDelete]: 'disk_delete',
  [NODE_OPS.diskPassword]: 'disk_password',
} as const;

type DiskOp = keyof typeof BUSY;

async function release(job: JobContext, kind: DiskOp): Promise<void> {
  const { accountId, nodeId, now } = jobTarget(job);
  await releaseNode(job.trx, accountId, nodeId, { kind: BUSY[kind], updated: now });
}

async function markReady(job: JobContext): Promise<void> {
  const { accountId, nodeId, now } = jobTarget(job);
  const disk = await findDisk(job.trx, accountId, nodeId, Number(job.payload.diskId));
  if (disk?.status === 'not ready') await updateDiskRow(job.trx, accountId, disk.id, { status: 'ready', updated: now });
}

async function dropDisk(job: JobContext): Promise<void> {
  const { accountId, nodeId } = jobTarget(job);
  const node = await findNode(job.trx, accountId, nodeId);
  if (!node) return;
  const diskId = Number(job.payload.diskId);
  await removeDiskFromConfigs(job.trx, node, diskId, await findConfigs(job.trx, accountId, nodeId));
  await deleteDiskRow(job.trx, accountId, diskId);
}

/** A disk operation: the node stays busy while the disk is written, then the disk is ready. */
function diskOperation(
  kind: DiskOp,
  transition: TransitionKind,
  onFail: (job: JobContext) => Promise<void>,
  work?: (job: WorkContext) => Promise<void>,
): OperationHandler {
  const done = kind === NODE_OPS.diskDelete ? dropDisk : markReady;
  return {
    kind,
    transition,
    ...(work && { work }),
    async finish(job) {
      await done(job);
      await release(job, kind);
    },
    async fail(job) {
      await onFail(job);
      await release(job, kind);
    },
  };
}

export const diskOperations: readonly OperationHandler[] = [
  // A disk that could not be written is removed; a resize or delete that failed leaves the disk usable.
  diskOperation(NODE_OPS.diskCreate, 'disk_create', dropDisk, makeDisk),
  diskOperation(NODE_OPS.diskClone, 'disk_clone', dropDisk, copyDisk),
  // A resize that failed gives the disk back the size it had (a shrink that does not fit changes no file).
  diskOperation(
    NODE_OPS.diskResize,
    'disk_resize',
    async (job) => {
      const { accountId, now } = jobTarget(job);
      const size = job.payload.fromSize;
      if (typeof size === 'number') await updateDiskRow(job.trx, accountId, Number(job.payload.diskId), { size, updated: now });
      await markReady(job);
    },
    resizeDiskFiles,
  ),
  diskOperation(
    NODE_OPS.diskDelete,
    'disk_delete',
    async (job) => {
      const { accountId, now } = jobTarget(job);
      await updateDiskRow(job.trx, accountId, Number(job.payload.diskId), { status: 'ready', updated: now });
    },
    removeDisk,
  ),
  // A password that could not be written leaves the node with the one its disk still has.
  diskOperation(
    NODE_OPS.diskPassword,
    'node_password',
    async (job) => {
      const { accountId, nodeId } = jobTarget(job);
      const hash = job.payload.previousRootPassHash;
      if (typeof hash === 'string') await updateNodeRow(job.trx, accountId, nodeId, { root_pass_hash: hash });
    },
    writeDiskRootPassword,
  ),
];
