import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { findConfigs } from '../configs/config.repository.ts';
import type { Interface, StoredConfig } from '../configs/config.schema.ts';
import { addConfig, configRowToConfig, type Devices } from '../configs/config.service.ts';
import { findDisks } from '../disks/disk.repository.ts';
import type { Filesystem } from '../disks/disk.schema.ts';
import { addDisk } from '../disks/disk.service.ts';
import type { NodeRow } from '../node.repository.ts';

/** A disk as captured: `id` is the disk's id on the node it was taken from, which the configs refer to. */
export interface CapturedDisk {
  id: number;
  label: string;
  size: number;
  filesystem: Filesystem;
  image: string | null;
}

/**
 * What a backup holds (the `content` column) and what a clone copies: a node's disks and its
 * configs in full, the image it was deployed from, its root password hash and the config it booted last.
 */
export interface NodeContent {
  disks: CapturedDisk[];
  configs: StoredConfig[];
  image: string | null;
  rootPassHash: string | null;
  bootConfigId: number | null;
}

export async function captureNode(db: Kysely<Database>, node: NodeRow): Promise<NodeContent> {
  const disks = await findDisks(db, node.account_id, node.id);
  const configs = await findConfigs(db, node.account_id, node.id);
  return {
    disks: disks.map((d) => ({ id: d.id, label: d.label, size: d.size, filesystem: d.filesystem as Filesystem, image: d.image })),
    configs: configs.map(configRowToConfig),
    image: node.image,
    rootPassHash: node.root_pass_hash,
    bootConfigId: node.last_booted_config_id,
  };
}

/** Reads a stored content column; rows written without content read as an empty node. */
export function parseContent(text: string): NodeContent {
  const parsed = JSON.parse(text) as Partial<NodeContent>;
  return {
    disks: parsed.disks ?? [],
    configs: parsed.configs ?? [],
    image: parsed.image ?? null,
    rootPassHash: parsed.rootPassHash ?? null,
    bootConfigId: parsed.bootConfigId ?? null,
  };
}

/** MB the content's disks take together. */
export function contentSize(content: NodeContent): number {
  return content.disks.reduce((sum, d) => sum + d.size, 0);
}

/**
 * Writes the content's disks (`not ready` until the operation that writes them ends) and configs
 * onto a node, the configs pointing at the new disks (and carrying `interfaces` instead of their
 * own when given), and returns the config to boot: the one booted last on the original node, else
 * the first, and the new disks' ids by the captured ones. In the caller's transaction; no checks, no events.
 */
export async function writeContent(
  db: Kysely<Database>,
  ctx: Context,
  node: NodeRow,
  content: NodeContent,
  interfaces?: readonly Interface[],
): Promise<{ configId: number | null; diskIds: Map<number, number> }> {
  const diskIds = new Map<number, number>();
  for (const disk of content.disks) {
    const row = await addDisk(db, ctx, node, {
      label: disk.label,
      size: disk.size,
      filesystem: disk.filesystem,
      image: disk.image,
      status: 'not ready',
    });
    diskIds.set(disk.id, row.id);
  }
  const configIds = new Map<number, number>();
  for (const config of content.configs) {
    const devices: Devices = {};
    for (const [slot, device] of Object.entries(config.devices) as [keyof Devices, { disk_id: number } | undefined][]) {
      const diskId = device && diskIds.get(device.disk_id);
      if (diskId !== undefined) devices[slot] = diskId;
    }
    const row = await addConfig(db, ctx, node, {
      label: config.label,
      devices,
      interfaces: interfaces ?? config.interfaces,
      kernel: config.kernel,
      comments: config.comments,
      memoryLimit: config.memory_limit,
      runLevel: config.run_level,
      virtMode: config.virt_mode,
      rootDevice: config.root_device,
      helpers: config.helpers,
    });
    configIds.set(config.id, row.id);
  }
  const boot = content.bootConfigId === null ? undefined : configIds.get(content.bootConfigId);
  return { configId: boot ?? configIds.values().next().value ?? null, diskIds };
}
