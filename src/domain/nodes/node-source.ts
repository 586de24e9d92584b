import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import type { AccountScope } from '../account/principal.ts';
import type { NodeTypeDataT } from '../catalog/catalog.ts';
import type { RestorePlan } from './backups/backup-copies.ts';
import { type BackupSource, deployBackup, resolveBackupSource } from './backups/node-backup-source.ts';
import type { Interface } from './configs/config.schema.ts';
import { addConfig } from './configs/config.service.ts';
import { addDisks, type NewDisk } from './disks/disk.service.ts';
import type { NodeRow } from './node.repository.ts';
import type { CreateNode } from './node.schema.ts';
import { checkDeployment, type Deployment, recordDeployment } from './node-deploy.ts';

export const DEFAULT_SWAP_MB = 512;
/** The kernel of the configs made for image deployments: the image's own bootloader. */
export const IMAGE_KERNEL = 'node/grub2';

/** What a new node is built from: nothing (empty), an image (with a StackScript, maybe) or another node's backup. */
export type NodeSource =
  | { kind: 'empty' }
  | { kind: 'image'; deployment: Deployment; swapSize: number; mainSize: number }
  | { kind: 'backup'; backup: BackupSource };

/** Checks the source a create request names, before anything is written. */
export async function resolveNodeSource(
  db: Kysely<Database>,
  ctx: Context,
  scope: AccountScope,
  body: CreateNode,
  type: NodeTypeDataT,
): Promise<NodeSource> {
  const backupId = body.backup_id ?? null;
  if (backupId !== null) {
    if ((body.image ?? null) !== null || (body.stackscript_id ?? null) !== null) {
      throw fail.badRequest('A node comes from an image or from a backup, not both', 'backup_id');
    }
    return { kind: 'backup', backup: await resolveBackupSource(db, ctx, scope, backupId, { region: body.region, type }) };
  }
  const deployment = await checkDeployment(db, ctx, scope, body);
  if (!deployment) return { kind: 'empty' };
  const swapSize = body.swap_size ?? DEFAULT_SWAP_MB;
  const mainSize = type.disk - swapSize;
  if (mainSize < deployment.image.size) {
    const field = type.disk >= deployment.image.size ? 'swap_size' : 'type';
    throw fail.badRequest(
      `Type ${type.id} has ${type.disk} MB of disk; less ${swapSize} MB of swap that leaves ${mainSize} MB, and image ${deployment.image.id} needs ${deployment.image.size} MB`,
      field,
    );
  }
  return { kind: 'image', deployment, swapSize, mainSize };
}

/**
 * Writes the disks and config of a new node in the creation's transaction and returns the config
 * it boots from (null for an empty node, which gets none). From an image: the main disk (the rest
 * of the type's space, ext4) in sda, the swap disk in sdb, and a config carrying the interfaces.
 */
export async function buildNode(
  db: Kysely<Database>,
  ctx: Context,
  node: NodeRow,
  source: NodeSource,
  interfaces: readonly Interface[],
): Promise<{ configId: number | null; plan?: RestorePlan }> {
  if (source.kind === 'empty') return { configId: null };
  if (source.kind === 'backup') return deployBackup(db, ctx, node, source.backup, interfaces);
  const { image } = source.deployment;
  const disks: NewDisk[] = [
    {
      label: `${image.label} Disk`.slice(0, 48),
      size: source.mainSize,
      filesystem: 'ext4',
      image: image.id,
      status: 'not ready',
    },
  ];
  if (source.swapSize > 0) {
    disks.push({
      label: `${source.swapSize} MB Swap Image`,
      size: source.swapSize,
      filesystem: 'swap',
      image: null,
      status: 'not ready',
    });
  }
  const [main, swap] = await addDisks(db, ctx, node, disks);
  if (!main) throw fail.internal();
  const config = await addConfig(db, ctx, node, {
    label: `My ${image.label} Disk Profile`.slice(0, 48),
    kernel: IMAGE_KERNEL,
    devices: swap ? { sda: main.id, sdb: swap.id } : { sda: main.id },
    interfaces,
  });
  await recordDeployment(db, source.deployment);
  return { configId: config.id };
}
