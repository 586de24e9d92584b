import type { ComputeDriver, DeploySettings, MachineSpec } from '../../../compute/driver.ts';
import { lockRows } from '../../../db/row-locks.ts';
import { inTransaction } from '../../../db/transaction.ts';
import type { PrepareContext } from '../../../jobs/handler.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { publicImageFiles } from '../../images/public-image-data.ts';
import { dataDiskGrowth } from '../disks/data-disk-growth.ts';
import { moveNodeToRegion } from '../lifecycle/region-move.ts';
import { machineKey, rescueDiskKey } from './compute-keys.ts';
import { rescueSpecOf } from './machine-spec.ts';
import {
  BOOT_TIMEOUT_MS,
  discardIfDeleted,
  diskSpec,
  driverOf,
  nodeOf,
  SHUTDOWN_GRACE_MS,
  startMachine,
} from './machine-work.ts';

/**
 * The real work of the operations that take a node down and bring it back changed: resize, migrate
 * and rescue. Each starts by stopping the machine, and each step may run again after a crash.
 */

/** The image the rescue system boots: small, with SSH and the tools to mend a disk. */
export const RESCUE_RECIPE = 'busybox';
/** The rescue system's own disk (sparse): room beside the image for what a user brings in. */
const RESCUE_DISK_MB = 256;

/** Whether the operation brings the node back up, with the config its request chose. */
function bootsAfter(job: PrepareContext): boolean {
  return job.payload.returnsTo === 'running' && typeof job.payload.configId === 'number';
}

/** Resize (and mutate): the machine stopped, the data disk grown when asked, and booted with the new type's memory and vCPUs. */
export async function resizeMachine(job: PrepareContext): Promise<void> {
  const node = await nodeOf(job);
  const type = job.ctx.catalog.type(String(job.payload.type));
  if (!node || !type) return;
  const driver = driverOf(job);
  await driver.stop(machineKey(node.id), { graceMs: SHUTDOWN_GRACE_MS });
  const growth = job.payload.autoResize !== false ? await dataDiskGrowth(job.ctx.db, node, type.disk) : null;
  if (growth) await driver.resizeDisk({ ...diskSpec(growth.disk), sizeMb: growth.sizeMb });
  if (bootsAfter(job)) await startMachine(job, { ...node, type: type.id });
}

/**
 * Migrate: the machine stopped; to another region, the node moved there first (new addresses, in a
 * transaction of its own: the network helper writes them at boot, and the operation's finish finds it
 * moved); then booted again. One host holds every region's disks: they stay where they are.
 */
export async function migrateMachine(job: PrepareContext): Promise<void> {
  const found = await nodeOf(job);
  if (!found) return;
  await driverOf(job).stop(machineKey(found.id), { graceMs: SHUTDOWN_GRACE_MS });
  const regionId = job.payload.region;
  if (typeof regionId === 'string') {
    const { ctx } = job;
    const typeId = typeof job.payload.type === 'string' ? job.payload.type : null;
    await inTransaction(ctx.db, async (trx) => {
      await lockRows(trx, 'nodes', 'id', [found.id]);
      const now = toTimestamp(ctx.clock.nowMs());
      await moveNodeToRegion(trx, ctx, { accountId: found.account_id, nodeId: found.id, regionId, typeId, now });
    });
  }
  const node = await nodeOf(job);
  if (node && bootsAfter(job)) await startMachine(job, node);
}

/** How root logs in to the node: the root password hash and authorized keys of the first of its disks that has an /etc/shadow. */
async function rootAccessOf(
  driver: ComputeDriver,
  spec: MachineSpec,
): Promise<Pick<DeploySettings, 'rootPasswordHash' | 'authorizedKeys'>> {
  for (const key of spec.devices.slice(0, spec.rootDevice)) {
    if (key === null) continue;
    const shadow = await driver.readDiskFile(key, '/etc/shadow');
    if (shadow === null) continue;
    const hash = /^root:([^:]*):/m.exec(shadow)?.[1] ?? '';
    const keys = (await driver.readDiskFile(key, '/root/.ssh/authorized_keys')) ?? '';
    return {
      rootPasswordHash: hash.startsWith('$') ? hash : null,
      authorizedKeys: keys.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#')),
    };
  }
  return { rootPasswordHash: null, authorizedKeys: [] };
}

/**
 * Rescue: the machine stopped, then booted from a fresh rescue disk (the rescue recipe's image) with
 * the node's disks attached as the request named them. The rescue system has the node's addresses,
 * and root logs in with the password and keys of the node's own root disk, over SSH or the console.
 */
export async function rescueMachine(job: PrepareContext): Promise<void> {
  const node = await nodeOf(job);
  if (!node) return;
  const driver = driverOf(job);
  const devices = (job.payload.devices ?? {}) as Partial<Record<string, number>>;
  const spec = await rescueSpecOf(job.ctx.db, job.ctx, node, devices);
  await driver.stop(spec.key, { graceMs: SHUTDOWN_GRACE_MS });
  const image = await publicImageFiles(job.ctx.blobs, RESCUE_RECIPE);
  if (!image) throw new Error(`the rescue image (recipe ${RESCUE_RECIPE}) is not built on this server`);
  await driver.deployImage({ key: rescueDiskKey(node.id), sizeMb: RESCUE_DISK_MB, filesystem: 'ext4' }, image, {
    hostname: 'rescue',
    ...(await rootAccessOf(driver, spec)),
    network: spec.interfaces.flatMap((i) => (i.addresses ? [i.addresses] : [])),
  });
  await driver.start(spec, { timeoutMs: BOOT_TIMEOUT_MS });
  await discardIfDeleted(job, node, []);
}
