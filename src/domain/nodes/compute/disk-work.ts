import type { PrepareContext } from '../../../jobs/handler.ts';
import { type DiskRow, findDisk } from '../disks/disk.repository.ts';
import type { NodeRow } from '../node.repository.ts';
import { diskKey, machineKey } from './compute-keys.ts';
import { diskSpec, driverOf, nodeOf } from './machine-work.ts';

/**
 * The real work of the disk operations that change a disk's files in place (resize, root
 * password), when nodes run on a compute driver. The node is powered off (the request checked it
 * and the operation holds it); its machine is checked again, as writing under a running guest
 * would corrupt the disk.
 */

/** The operation's disk, with its node, once the node's machine is known to be stopped; null when either is gone. */
async function stoppedDisk(job: PrepareContext): Promise<{ node: NodeRow; disk: DiskRow } | null> {
  const node = await nodeOf(job);
  if (!node) return null;
  const disk = await findDisk(job.ctx.db, node.account_id, node.id, Number(job.payload.diskId));
  if (!disk) return null;
  if ((await driverOf(job).state(machineKey(node.id))) === 'running')
    throw new Error(`node ${node.id} is running: disk ${disk.id} is in use`);
  return { node, disk };
}

/** Disk resize: the disk's file and filesystem to the size its row now holds. */
export async function resizeDiskFiles(job: PrepareContext): Promise<void> {
  const found = await stoppedDisk(job);
  if (found) await driverOf(job).resizeDisk(diskSpec(found.disk));
}

/** Root password reset: the hash the request made (in the payload) into the disk's /etc/shadow. */
export async function writeDiskRootPassword(job: PrepareContext): Promise<void> {
  const hash = job.payload.rootPasswordCrypt;
  if (typeof hash !== 'string') throw new Error('a root password reset without its hash in the payload');
  const found = await stoppedDisk(job);
  if (found) await driverOf(job).setRootPassword(diskKey(found.disk.id), hash);
}
