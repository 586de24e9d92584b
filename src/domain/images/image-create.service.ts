import type { Context } from '../../context.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { randomHex } from '../../random.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { grantToCreator } from '../account/grant-entities.ts';
import { actorOf, type Principal, scopeOf } from '../account/principal.ts';
import { findDiskForImage } from '../nodes/disks/disk-for-image.ts';
import { nodeEntity } from '../nodes/node-access.ts';
import { assertMayTag } from '../tags/tag.service.ts';
import { IMAGE_CREATE } from './image.jobs.ts';
import { insertPrivateImage } from './image.repository.ts';
import type { CreateImage, Image } from './image.schema.ts';
import { scheduleImageOperation, tagNewImage, vendorOfSourceImage } from './image.service.ts';
import { diskCaptureState } from './image-capture.ts';
import { imageSecondary } from './image-deploy.ts';

/**
 * Captures a private image from a disk of the caller's account: `creating` at once, `available`
 * when the image_create operation finishes; its disk_imagize event follows the operation. A disk
 * still being made is waited for (the event stays scheduled), and the image fails if it never is.
 */
export async function createImage(ctx: Context, principal: Principal, body: CreateImage): Promise<Image> {
  const scope = scopeOf(principal);
  assertMayTag(principal, body.tags);
  return inTransaction(ctx.db, async (trx) => {
    // The disk is held while it is read and captured: a delete of it (or of its node) waits.
    await lockRows(trx, 'disks', 'id', [body.disk_id]);
    const disk = await findDiskForImage(trx, scope, body.disk_id);
    if (!disk) throw fail.badRequest(`No disk ${body.disk_id} on this account that you may read`, 'disk_id');
    // A disk still being written (a new node's) is captured once it is ready: the capture waits for it.
    const state = diskCaptureState(disk.id, disk);
    if (typeof state === 'object') throw fail.badRequest(state.refused, 'disk_id');
    const now = toTimestamp(ctx.clock.nowMs());
    const row = await insertPrivateImage(
      trx,
      {
        account_id: principal.accountId,
        label: body.label ?? disk.label,
        description: body.description ?? null,
        created: now,
        updated: now,
        created_by: principal.username,
        size: disk.size,
        type: 'manual',
        expiry: null,
        vendor: await vendorOfSourceImage(trx, ctx, principal.accountId, disk.image),
        status: 'creating',
        region: disk.nodeRegion,
        blob_key: null,
        source_node_id: null,
      },
      `creating/${randomHex(ctx.random, 12)}`,
    );
    await grantToCreator(trx, scope, 'image', row.num);
    // As the live service records it: the disk's node is the entity, the image being made the secondary.
    await scheduleImageOperation(trx, ctx, actorOf(principal), {
      kind: IMAGE_CREATE,
      image: row,
      payload: { diskId: disk.id },
      event: {
        action: 'disk_imagize',
        entity: nodeEntity({ id: disk.nodeId, label: disk.nodeLabel }),
        secondary: imageSecondary(row),
      },
      dataMb: disk.size,
    });
    return tagNewImage(trx, ctx, principal, row, body.tags);
  });
}
