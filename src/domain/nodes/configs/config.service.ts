import type { Kysely, RawBuilder } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { mapPage, type PageRequest } from '../../../db/paginate.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { type ErrorItem, fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { type AccountScope, type Actor, actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { recordEvent } from '../../events/event.service.ts';
import type { EventAction } from '../../events/event-kinds.ts';
import type { VlanAttachmentRow } from '../../networking/vlan.table.ts';
import { findDisks } from '../disks/disk.repository.ts';
import { type NodeRow, updateNodeRow } from '../node.repository.ts';
import { nodeEntity, nodeFor } from '../node-access.ts';
import { attachVlans, checkInterfaces } from '../node-interfaces.ts';
import {
  type ConfigRow,
  deleteConfigRow,
  findConfig,
  insertConfig,
  listConfigs,
  updateConfigRow,
  vlanInterfaces,
} from './config.repository.ts';
import {
  type Config,
  type ConfigHelpers,
  type CreateConfig,
  DEVICE_SLOTS,
  type DeviceSlot,
  type DevicesBodyT,
  type Interface,
  MAX_INTERFACES,
  type StoredConfig,
  type UpdateConfig,
} from './config.schema.ts';
import { configSecondary } from './config-entity.ts';

export const DEFAULT_KERNEL = 'node/latest-64bit';
export const DEFAULT_HELPERS: ConfigHelpers = {
  updatedb_disabled: true,
  distro: true,
  modules_dep: true,
  network: true,
  devtmpfs_automount: true,
};

/** Which disk sits in which slot; empty slots are absent. */
export type Devices = Partial<Record<DeviceSlot, number>>;

export function configRowToConfig(row: ConfigRow): StoredConfig {
  const stored = JSON.parse(row.devices) as Record<string, { disk_id: number | null } | null>;
  const devices: Config['devices'] = {};
  for (const slot of DEVICE_SLOTS) {
    const diskId = stored[slot]?.disk_id;
    devices[slot] = diskId === undefined || diskId === null ? null : { disk_id: diskId, volume_id: null };
  }
  return {
    id: row.id,
    label: row.label,
    kernel: row.kernel,
    comments: row.comments ?? '',
    memory_limit: row.memory_limit,
    run_level: row.run_level as Config['run_level'],
    virt_mode: row.virt_mode as Config['virt_mode'],
    interfaces: JSON.parse(row.interfaces) as Interface[],
    helpers: JSON.parse(row.helpers) as ConfigHelpers,
    devices,
    root_device: row.root_device,
    initrd: null,
    created: row.created,
    updated: row.updated,
  };
}

/**
 * A config as clients read it: each interface with its id (derived from the config's id and its
 * position, so it stays what it was while the config keeps its interfaces) and whether it is in use.
 */
export function configView(row: ConfigRow, node: Pick<NodeRow, 'status' | 'last_booted_config_id'>): Config {
  const stored = configRowToConfig(row);
  const active = node.status === 'running' && node.last_booted_config_id === row.id;
  return {
    ...stored,
    interfaces: stored.interfaces.map((iface, position) => ({
      id: row.id * MAX_INTERFACES + position + 1,
      purpose: iface.purpose,
      label: iface.label,
      ipam_address: iface.ipam_address,
      primary: iface.primary ?? false,
      active,
      vpc_id: null,
      subnet_id: null,
      ipv4: null,
      ip_ranges: null,
      ipv6: null,
    })),
  };
}

function storedDevices(devices: Devices): string {
  return JSON.stringify(
    Object.fromEntries(DEVICE_SLOTS.map((s) => [s, devices[s] === undefined ? null : { disk_id: devices[s], volume_id: null }])),
  );
}

export interface NewConfig {
  label: string;
  devices: Devices;
  interfaces: readonly Interface[];
  kernel?: string;
  comments?: string | null;
  memoryLimit?: number;
  runLevel?: string;
  virtMode?: string;
  rootDevice?: string;
  helpers?: Partial<ConfigHelpers>;
}

/**
 * Adds a config profile to a node in the caller's transaction, with no event and no checks: for
 * services that build configs of their own (node creation, clones, restores). Attaches its VLANs.
 */
export async function addConfig(db: Kysely<Database>, ctx: Context, node: NodeRow, spec: NewConfig): Promise<ConfigRow> {
  const now = toTimestamp(ctx.clock.nowMs());
  await attachVlans(db, node.account_id, node.region, spec.interfaces, now);
  return insertConfig(db, {
    account_id: node.account_id,
    node_id: node.id,
    label: spec.label,
    kernel: spec.kernel ?? DEFAULT_KERNEL,
    comments: spec.comments ?? null,
    memory_limit: spec.memoryLimit ?? 0,
    run_level: spec.runLevel ?? 'default',
    virt_mode: spec.virtMode ?? 'paravirt',
    root_device: spec.rootDevice ?? '/dev/sda',
    helpers: JSON.stringify({ ...DEFAULT_HELPERS, ...spec.helpers }),
    devices: storedDevices(spec.devices),
    interfaces: JSON.stringify(spec.interfaces),
    created: now,
    updated: now,
  });
}

/** The disks named in a request's devices must be the node's own; volumes are not offered. */
export async function checkDevices(db: Kysely<Database>, node: NodeRow, body: DevicesBodyT): Promise<Devices> {
  const disks = new Set((await findDisks(db, node.account_id, node.id)).map((d) => d.id));
  const problems: ErrorItem[] = [];
  const devices: Devices = {};
  for (const slot of DEVICE_SLOTS) {
    const device = body[slot];
    if (!device) continue;
    if (device.volume_id !== undefined && device.volume_id !== null) {
      problems.push({ field: `devices.${slot}.volume_id`, reason: 'Volumes are not offered; attach a disk instead' });
    }
    const diskId = device.disk_id;
    if (diskId === undefined || diskId === null) continue;
    if (!disks.has(diskId))
      problems.push({ field: `devices.${slot}.disk_id`, reason: `Disk ${diskId} is not a disk of this node` });
    devices[slot] = diskId;
  }
  if (problems.length) throw fail.invalid(problems);
  return devices;
}

function checkKernel(ctx: Context, kernel: string | undefined): void {
  if (kernel !== undefined && !ctx.catalog.kernel(kernel)) throw fail.badRequest(`Kernel ${kernel} does not exist`, 'kernel');
}

function regionOf(ctx: Context, node: NodeRow) {
  const region = ctx.catalog.region(node.region);
  if (!region) throw fail.badRequest(`The node's region ${node.region} is no longer offered`, 'interfaces');
  return region;
}

/** A config's changes are notifications on its node, naming the config, as the live service records them. */
async function configEvent(db: Kysely<Database>, ctx: Context, actor: Actor, node: NodeRow, row: ConfigRow, action: EventAction) {
  await recordEvent(db, ctx, actor, {
    action,
    entity: nodeEntity(node),
    secondary: configSecondary(row),
  });
}

async function existingConfig(db: Kysely<Database>, node: NodeRow, configId: number): Promise<ConfigRow> {
  const row = await findConfig(db, node.account_id, node.id, configId);
  if (!row) throw fail.notFound();
  return row;
}

export async function getConfigs(ctx: Context, scope: AccountScope, nodeId: number, request: PageRequest) {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  return mapPage(await listConfigs(ctx.db, node.account_id, node.id, request), (row) => configView(row, node));
}

export async function getConfig(ctx: Context, scope: AccountScope, nodeId: number, configId: number): Promise<Config> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  return configView(await existingConfig(ctx.db, node, configId), node);
}

export async function createConfig(ctx: Context, principal: Principal, nodeId: number, body: CreateConfig): Promise<Config> {
  checkKernel(ctx, body.kernel);
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const interfaces = checkInterfaces(body.interfaces ?? [], regionOf(ctx, node));
    const row = await addConfig(trx, ctx, node, {
      label: body.label,
      devices: await checkDevices(trx, node, body.devices),
      interfaces,
      ...(body.kernel !== undefined ? { kernel: body.kernel } : {}),
      comments: body.comments ?? null,
      ...(body.memory_limit !== undefined ? { memoryLimit: body.memory_limit } : {}),
      ...(body.run_level !== undefined ? { runLevel: body.run_level } : {}),
      ...(body.virt_mode !== undefined ? { virtMode: body.virt_mode } : {}),
      ...(body.root_device !== undefined ? { rootDevice: body.root_device } : {}),
      ...(body.helpers !== undefined ? { helpers: body.helpers } : {}),
    });
    await configEvent(trx, ctx, actorOf(principal), node, row, 'node_config_create');
    return configView(row, node);
  });
}

export async function updateConfig(
  ctx: Context,
  principal: Principal,
  nodeId: number,
  configId: number,
  body: UpdateConfig,
): Promise<Config> {
  checkKernel(ctx, body.kernel);
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const current = await existingConfig(trx, node, configId);
    const now = toTimestamp(ctx.clock.nowMs());
    let interfaces: Interface[] | undefined;
    if (body.interfaces !== undefined) {
      interfaces = checkInterfaces(body.interfaces, regionOf(ctx, node));
      await attachVlans(trx, node.account_id, node.region, interfaces, now);
    }
    const devices = body.devices === undefined ? undefined : await checkDevices(trx, node, body.devices);
    const row = await updateConfigRow(trx, node.account_id, current.id, {
      label: body.label,
      kernel: body.kernel,
      comments: body.comments,
      memory_limit: body.memory_limit,
      run_level: body.run_level,
      virt_mode: body.virt_mode,
      root_device: body.root_device,
      helpers: body.helpers && JSON.stringify({ ...(JSON.parse(current.helpers) as ConfigHelpers), ...body.helpers }),
      devices: devices && storedDevices(devices),
      interfaces: interfaces && JSON.stringify(interfaces),
      updated: now,
    });
    await configEvent(trx, ctx, actorOf(principal), node, row, 'node_config_update');
    return configView(row, node);
  });
}

export async function deleteConfig(ctx: Context, principal: Principal, nodeId: number, configId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const row = await existingConfig(trx, node, configId);
    await deleteConfigRow(trx, node.account_id, row.id);
    // A deleted config can no longer be "the last booted" one that boot falls back to.
    if (node.last_booted_config_id === row.id) {
      await updateNodeRow(trx, node.account_id, node.id, { last_booted_config_id: null });
    }
    await configEvent(trx, ctx, actorOf(principal), node, row, 'node_config_delete');
  });
}

/** Takes a deleted disk out of every config of its node that uses it. */
export async function removeDiskFromConfigs(db: Kysely<Database>, node: NodeRow, diskId: number, configs: readonly ConfigRow[]) {
  for (const config of configs) {
    const stored = JSON.parse(config.devices) as Record<string, { disk_id: number | null } | null>;
    const devices: Devices = {};
    for (const slot of DEVICE_SLOTS) {
      const id = stored[slot]?.disk_id;
      if (id !== undefined && id !== null && id !== diskId) devices[slot] = id;
    }
    const changed = DEVICE_SLOTS.some((s) => stored[s]?.disk_id === diskId);
    if (changed) await updateConfigRow(db, node.account_id, config.id, { devices: storedDevices(devices) });
  }
}

/**
 * What networking lists VLANs from: the (node, region, label) of every VLAN interface of the scope's
 * nodes' configs, as a subquery so that the VLAN list pages in the database.
 */
export function vlanAttachments(db: Kysely<Database>, scope: AccountScope): RawBuilder<VlanAttachmentRow> {
  return vlanInterfaces(db, scope);
}
