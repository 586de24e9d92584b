import type { ComputeDriver, DeploySettings, DiskFilesystem, DiskSpec, Progress } from '../../../compute/driver.ts';
import type { PrepareContext } from '../../../jobs/handler.ts';
import type { WorkContext } from '../../../jobs/operation.ts';
import { progressSteps } from '../../../jobs/work-progress.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { imageFiles } from '../../images/image-files.ts';
import { findConfig } from '../configs/config.repository.ts';
import { type DiskRow, findDisk, findDisks, markNodeDisksReady } from '../disks/disk.repository.ts';
import { findNode, type NodeRow } from '../node.repository.ts';
import type { DeployAccess } from '../node-deploy.ts';
import { diskKey, machineKey, rescueDiskKey } from './compute-keys.ts';
import { machineInterfaces, machineSpecOf } from './machine-spec.ts';

/**
 * The real work of node and disk operations when nodes run on a compute driver (operation.ts calls
 * it before the finish phase's transaction). Each step may run again after a crash, so each is
 * safe to repeat: a machine found running is not deployed over, a disk is written whole again.
 */

/** Under software emulation a Debian guest takes about 25 s to answer; a slow host may take several times that. */
export const BOOT_TIMEOUT_MS = 5 * 60_000;
/** How long a guest has to power off after the ACPI button before it is forced off. */
export const SHUTDOWN_GRACE_MS = 30_000;

export function driverOf(job: PrepareContext): ComputeDriver {
  const driver = job.ctx.compute;
  if (driver === null) throw new Error('a real operation ran without a compute driver');
  return driver;
}

/** The operation's node as it is now, or null when it has been deleted meanwhile (nothing left to do). */
export async function nodeOf(job: PrepareContext): Promise<NodeRow | null> {
  return (await findNode(job.ctx.db, job.job.account_id ?? 0, Number(job.payload.nodeId))) ?? null;
}

export function diskSpec(disk: DiskRow): DiskSpec {
  return { key: diskKey(disk.id), sizeMb: disk.size, filesystem: disk.filesystem as DiskFilesystem };
}

/** A label as a host name: the characters a host name may not hold (`_`) become `-`. */
function hostnameOf(label: string): string {
  return label.replace(/[^A-Za-z0-9.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'node';
}

async function settingsFor(job: PrepareContext, node: NodeRow, deploy: DeployAccess): Promise<DeploySettings> {
  const configId = job.payload.configId;
  const config = typeof configId === 'number' ? await findConfig(job.ctx.db, node.account_id, node.id, configId) : undefined;
  const interfaces = await machineInterfaces(job.ctx.db, node, config ?? null);
  return {
    hostname: hostnameOf(node.label),
    rootPasswordHash: deploy.rootPasswordCrypt,
    authorizedKeys: deploy.authorizedKeys,
    network: interfaces.flatMap((i) => (i.addresses ? [i.addresses] : [])),
    ...(deploy.firstBoot && { firstBoot: deploy.firstBoot }),
  };
}

/** A disk as its row says: the image with the deploy settings when it was deployed from one, blank otherwise. */
async function writeDisk(job: PrepareContext, node: NodeRow, disk: DiskRow, onProgress: Progress): Promise<void> {
  const driver = driverOf(job);
  const deploy = job.payload.deploy as DeployAccess | null | undefined;
  if (disk.image !== null && deploy) {
    const image = await imageFiles(job.ctx, disk.image);
    await driver.deployImage(diskSpec(disk), image, await settingsFor(job, node, deploy), onProgress);
  } else {
    await driver.prepareDisk(diskSpec(disk));
    onProgress(1);
  }
}

/** Progress over disks, each weighing its size: the share of `span` each disk's copy takes. */
function diskSteps(job: WorkContext, disks: readonly DiskRow[], span: readonly [number, number] = [0, 1]): Progress[] {
  return progressSteps(
    (fraction) => job.progress(fraction),
    disks.map((d) => d.size),
    span,
  );
}

/** Starts the node's machine from the job's config and waits for the guest to be up; a rescue system's disk is left behind. */
export async function startMachine(job: PrepareContext, node: NodeRow, diskIds: readonly number[] = []): Promise<void> {
  const config = await findConfig(job.ctx.db, node.account_id, node.id, Number(job.payload.configId));
  if (!config) throw new Error(`config ${String(job.payload.configId)} of node ${node.id} is gone`);
  const spec = await machineSpecOf(job.ctx.db, job.ctx, node, config);
  const driver = driverOf(job);
  // The config's network helper gives the root disk this node's addresses at each boot (a cloned disk has its source's).
  const root = spec.devices[spec.rootDevice];
  const helpers = JSON.parse(config.helpers) as { network?: boolean };
  if ((await driver.state(spec.key)) !== 'running') {
    await driver.deleteDisk(rescueDiskKey(node.id));
    if (helpers.network && root) {
      await driver.writeNetwork(
        root,
        spec.interfaces.flatMap((i) => (i.addresses ? [i.addresses] : [])),
      );
    }
  }
  await driver.start(spec, { timeoutMs: BOOT_TIMEOUT_MS });
  await discardIfDeleted(job, node, diskIds);
}

/**
 * A node deleted while its work ran had its machine and files discarded (node.discard) perhaps
 * before this work made them: what the work made goes too.
 */
export async function discardIfDeleted(job: PrepareContext, node: NodeRow, diskIds: readonly number[]): Promise<void> {
  if (await nodeOf(job)) return;
  const driver = driverOf(job);
  await driver.destroy(machineKey(node.id));
  for (const key of [...diskIds.map(diskKey), rescueDiskKey(node.id)]) await driver.deleteDisk(key);
}

/** The node's disks are `ready` once written, before its machine starts: a start that fails leaves them usable. */
export async function disksWritten(job: PrepareContext, node: NodeRow): Promise<void> {
  await markNodeDisksReady(job.ctx.db, node.account_id, node.id, toTimestamp(job.ctx.clock.nowMs()));
}

/** Provisioning (and rebuilding): the node's disks written, then its machine started unless created with `booted: false`. */
export async function buildMachine(job: WorkContext): Promise<void> {
  const node = await nodeOf(job);
  if (!node) return;
  const driver = driverOf(job);
  const key = machineKey(node.id);
  // A rebuild replaces what ran before (done again after a crash, it writes the new disks again).
  const oldDisks = job.payload.oldDisks as number[] | undefined;
  if (oldDisks !== undefined) await driver.stop(key, { graceMs: 0 });
  const disks = await findDisks(job.ctx.db, node.account_id, node.id);
  const diskIds = disks.map((d) => d.id);
  if ((await driver.state(key)) !== 'running') {
    for (const id of oldDisks ?? []) await driver.deleteDisk(diskKey(id));
    // Writing the disks is most of a build; the boot that follows reports nothing until it is up.
    const steps = diskSteps(job, disks, [0, job.payload.booted !== false ? 0.8 : 1]);
    for (const [i, disk] of disks.entries()) await writeDisk(job, node, disk, steps[i] ?? (() => {}));
    await disksWritten(job, node);
  }
  if (job.payload.booted !== false) await startMachine(job, node, diskIds);
  else await discardIfDeleted(job, node, diskIds);
}

export async function bootMachine(job: PrepareContext): Promise<void> {
  const node = await nodeOf(job);
  if (node) await startMachine(job, node);
}

export async function rebootMachine(job: PrepareContext): Promise<void> {
  const node = await nodeOf(job);
  if (!node) return;
  await driverOf(job).stop(machineKey(node.id), { graceMs: SHUTDOWN_GRACE_MS });
  await startMachine(job, node);
}

export async function stopMachine(job: PrepareContext): Promise<void> {
  const node = await nodeOf(job);
  if (node) await driverOf(job).stop(machineKey(node.id), { graceMs: SHUTDOWN_GRACE_MS });
}

/** A disk created on its own (disk create): written from its image or blank. */
export async function makeDisk(job: WorkContext): Promise<void> {
  const node = await nodeOf(job);
  if (!node) return;
  const disk = await findDisk(job.ctx.db, node.account_id, node.id, Number(job.payload.diskId));
  if (disk) await writeDisk(job, node, disk, (fraction) => job.progress(fraction));
}

/** A disk cloned on its node (disk clone): a copy of its source's files, made while the source's machine is paused. */
export async function copyDisk(job: WorkContext): Promise<void> {
  const node = await nodeOf(job);
  if (!node) return;
  const copy = await findDisk(job.ctx.db, node.account_id, node.id, Number(job.payload.diskId));
  if (copy) await driverOf(job).copyDisk(diskKey(Number(job.payload.sourceDiskId)), diskSpec(copy), (f) => job.progress(f));
}

/**
 * A node clone's disks (the operation runs on the source): each target disk a copy of its source
 * disk, as the payload pairs them; a target deleted meanwhile has nothing left to copy.
 */
export async function copyNodeDisks(job: WorkContext): Promise<void> {
  const accountId = job.job.account_id ?? 0;
  const target = await findNode(job.ctx.db, accountId, Number(job.payload.targetId));
  if (!target) return;
  const pairs: [number, DiskRow][] = [];
  for (const [from, to] of (job.payload.disks ?? []) as [number, number][]) {
    const disk = await findDisk(job.ctx.db, accountId, target.id, to);
    if (disk) pairs.push([from, disk]);
  }
  const steps = diskSteps(
    job,
    pairs.map(([, disk]) => disk),
  );
  for (const [i, [from, disk]] of pairs.entries()) await driverOf(job).copyDisk(diskKey(from), diskSpec(disk), steps[i]);
}

export async function removeDisk(job: PrepareContext): Promise<void> {
  await driverOf(job).deleteDisk(diskKey(Number(job.payload.diskId)));
}
