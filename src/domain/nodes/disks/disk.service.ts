import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { mapPage, type PageRequest } from '../../../db/paginate.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { recordEvent, type SecondaryRef } from '../../events/event.service.ts';
import { assertDeploysOnto } from '../../images/image-deploy.ts';
import { assertDiskFits } from '../compute/disk-capacity.ts';
import type { NodeRow } from '../node.repository.ts';
import { assertSettled, claimSettledNode, nodeEntity, nodeFor } from '../node-access.ts';
import { checkDeployment, recordDeployment } from '../node-deploy.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';
import { type DiskRow, findDisk, insertDisks, listDisks, sumDiskSizes, updateDiskRow } from './disk.repository.ts';
import type { CreateDisk, Disk, Filesystem, UpdateDisk } from './disk.schema.ts';

export function diskRowToDisk(row: DiskRow): Disk {
  return {
    id: row.id,
    label: row.label,
    status: row.status as Disk['status'],
    size: row.size,
    filesystem: row.filesystem as Disk['filesystem'],
    created: row.created,
    updated: row.updated,
    disk_encryption: 'disabled',
  };
}

/** A disk as the secondary entity of its node's disk_* events. */
export function diskSecondary(row: Pick<DiskRow, 'id' | 'label' | 'node_id'>): SecondaryRef {
  return { id: row.id, type: 'disk', label: row.label, url: `/v4/node/instances/${row.node_id}/disks/${row.id}` };
}

export interface NewDisk {
  label: string;
  size: number;
  filesystem: Filesystem;
  image: string | null;
  /** `not ready` while a job writes it; `ready` once it is usable. */
  status: 'ready' | 'not ready';
}

/** Adds disks to a node in one statement, in the caller's transaction, with no checks or events: for services building disks. */
export async function addDisks(db: Kysely<Database>, ctx: Context, node: NodeRow, specs: readonly NewDisk[]): Promise<DiskRow[]> {
  const now = toTimestamp(ctx.clock.nowMs());
  return insertDisks(
    db,
    specs.map((spec) => ({
      account_id: node.account_id,
      node_id: node.id,
      label: spec.label,
      size: spec.size,
      filesystem: spec.filesystem,
      status: spec.status,
      image: spec.image,
      created: now,
      updated: now,
    })),
  );
}

/** Adds a disk to a node (see addDisks). */
export async function addDisk(db: Kysely<Database>, ctx: Context, node: NodeRow, spec: NewDisk): Promise<DiskRow> {
  const [row] = await addDisks(db, ctx, node, [spec]);
  if (!row) throw fail.internal();
  return row;
}

/** The disk space (MB) the node's type gives it. */
export function diskCapacity(ctx: Context, node: NodeRow): number {
  const type = ctx.catalog.type(node.type);
  if (!type) throw fail.badRequest(`The node's type ${node.type} is no longer offered`, 'type');
  return type.disk;
}

/** Refuses a change that would make the node's disks together larger than its type allows. */
export async function assertDiskSpace(db: Kysely<Database>, ctx: Context, node: NodeRow, extraMb: number, field = 'size') {
  const capacity = diskCapacity(ctx, node);
  const used = await sumDiskSizes(db, node.account_id, node.id);
  if (used + extraMb > capacity) {
    throw fail.badRequest(
      `Insufficient free disk space: ${capacity - used} MB of ${capacity} MB are free, ${extraMb} MB needed`,
      field,
    );
  }
}

export async function existingDisk(db: Kysely<Database>, node: NodeRow, diskId: number): Promise<DiskRow> {
  const row = await findDisk(db, node.account_id, node.id, diskId);
  if (!row) throw fail.notFound();
  return row;
}

export function assertDiskReady(disk: DiskRow): void {
  if (disk.status !== 'ready') throw fail.badRequest(`Disk ${disk.id} is ${disk.status}; wait until it is ready`);
}

export async function getDisks(ctx: Context, scope: AccountScope, nodeId: number, request: PageRequest) {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  return mapPage(await listDisks(ctx.db, node.account_id, node.id, request), diskRowToDisk);
}

export async function getDisk(ctx: Context, scope: AccountScope, nodeId: number, diskId: number): Promise<Disk> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  return diskRowToDisk(await existingDisk(ctx.db, node, diskId));
}

/**
 * Creates a disk, empty or deployed from an image (onto ext3 or ext4 with its settings, or onto raw as it is);
 * it is `not ready` until its job has written it.
 */
export async function createDisk(ctx: Context, principal: Principal, nodeId: number, body: CreateDisk): Promise<Disk> {
  const scope = scopeOf(principal);
  await nodeFor(ctx.db, scope, nodeId, 'read_write');
  const deployment = await checkDeployment(ctx.db, ctx, scope, body);
  const filesystem = body.filesystem ?? 'ext4';
  if (deployment) {
    assertDeploysOnto(filesystem);
    if (body.size < deployment.image.size) {
      throw fail.badRequest(`Image ${deployment.image.id} needs a disk of at least ${deployment.image.size} MB`, 'size');
    }
  }
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scope, nodeId, 'read_write');
    assertSettled(node);
    await assertDiskSpace(trx, ctx, node, body.size);
    await assertDiskFits(trx, ctx, { sizeMb: body.size, field: 'size', nodeId: node.id });
    await claimSettledNode(trx, node, { busy: 'disk_create' });
    const label = body.label ?? (deployment ? `${deployment.image.label} Disk` : `${body.size} MB Disk`).slice(0, 48);
    const disk = await addDisk(trx, ctx, node, {
      label,
      size: body.size,
      filesystem,
      image: deployment?.image.id ?? null,
      status: 'not ready',
    });
    if (deployment) await recordDeployment(trx, deployment);
    await startNodeOperation(trx, ctx, actorOf(principal), {
      node,
      action: 'disk_create',
      kind: NODE_OPS.diskCreate,
      payload: { diskId: disk.id, deploy: deployment?.access ?? null },
      secondary: diskSecondary(disk),
    });
    return diskRowToDisk(disk);
  });
}

export async function updateDisk(ctx: Context, principal: Principal, nodeId: number, diskId: number, body: UpdateDisk) {
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const disk = await existingDisk(trx, node, diskId);
    const row =
      (await updateDiskRow(trx, node.account_id, disk.id, { label: body.label, updated: toTimestamp(ctx.clock.nowMs()) })) ??
      disk;
    await recordEvent(trx, ctx, actorOf(principal), {
      action: 'disk_update',
      entity: nodeEntity(node),
      secondary: diskSecondary(row),
    });
    return diskRowToDisk(row);
  });
}

/** Deleting a disk takes a short job; the disk shows `deleting` until it is gone from the node and its configs. */
export async function deleteDisk(ctx: Context, principal: Principal, nodeId: number, diskId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const disk = await existingDisk(trx, node, diskId);
    assertDiskReady(disk);
    await claimSettledNode(trx, node, { busy: 'disk_delete' });
    await updateDiskRow(trx, node.account_id, disk.id, { status: 'deleting', updated: toTimestamp(ctx.clock.nowMs()) });
    await startNodeOperation(trx, ctx, actorOf(principal), {
      node,
      action: 'disk_delete',
      kind: NODE_OPS.diskDelete,
      payload: { diskId: disk.id },
      secondary: diskSecondary(disk),
    });
  });
}
