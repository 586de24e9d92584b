import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/paginate.ts';
import { lockRows } from '../../db/row-locks.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { type AccountScope, type Actor, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import { recordEvent, type SecondaryRef } from '../events/event.service.ts';
import { nodeEntity, nodeFor, nodeNamedIn } from '../nodes/node-access.ts';
import { type FirewallRow, listNodeFirewalls } from './firewall.repository.ts';
import type { CreateDevice, Firewall, FirewallDevice } from './firewall.schema.ts';
import { firewallEntity, firewallFor, firewallNamedIn } from './firewall-access.ts';
import { applyFirewallsLater } from './firewall-apply.jobs.ts';
import {
  type DeviceViewRow,
  deleteDeviceRow,
  deleteDevicesOfNode,
  deviceExists,
  findDevice,
  findDevicesOfNode,
  findEnabledOnNodes,
  insertDevice,
  listDevices,
} from './firewall-device.repository.ts';
import { deviceEntity, toFirewalls } from './firewall-view.ts';

export function deviceRowToDevice(row: DeviceViewRow): FirewallDevice {
  return {
    id: row.id,
    created: row.created,
    updated: row.updated,
    entity: deviceEntity(row),
  };
}

function nodeSecondary(node: { id: number; label: string }): SecondaryRef {
  return { ...nodeEntity(node), id: node.id };
}

export async function getDevices(ctx: Context, scope: AccountScope, firewallId: number, request: PageRequest) {
  const firewall = await firewallFor(ctx.db, scope, firewallId, 'read_only');
  return mapPage(await listDevices(ctx.db, firewall.account_id, firewall.id, request), deviceRowToDevice);
}

export async function getDevice(
  ctx: Context,
  scope: AccountScope,
  firewallId: number,
  deviceId: number,
): Promise<FirewallDevice> {
  const firewall = await firewallFor(ctx.db, scope, firewallId, 'read_only');
  const row = await findDevice(ctx.db, firewall.account_id, firewall.id, deviceId);
  if (!row) throw fail.notFound();
  return deviceRowToDevice(row);
}

/**
 * Assigns a locked firewall to nodes named in a request body at `field` (read_write on each). The
 * nodes are locked in one call before anything is read, so that a concurrent enable or assignment
 * on one of them waits. An enabled firewall is refused on a node that already holds an enabled one.
 * Event firewall_device_add for each.
 */
async function assign(
  db: Kysely<Database>,
  ctx: Context,
  principal: Principal,
  firewall: FirewallRow,
  nodes: readonly { id: number; field: string }[],
): Promise<DeviceViewRow[]> {
  const scope = scopeOf(principal);
  await lockRows(
    db,
    'nodes',
    'id',
    nodes.map((n) => n.id),
  );
  const devices: DeviceViewRow[] = [];
  for (const { id, field } of nodes) {
    const node = await nodeNamedIn(db, scope, id, 'read_write', field);
    if (await deviceExists(db, firewall.id, node.id)) {
      throw fail.badRequest(`Firewall ${firewall.label} is already assigned to node ${node.id}`, field);
    }
    if (firewall.status === 'enabled') {
      const other = await findEnabledOnNodes(db, firewall.account_id, [node.id], firewall.id);
      if (other) {
        throw fail.badRequest(
          `Node ${node.id} already has an enabled firewall (${other.label}); a node has one enabled firewall at a time`,
          field,
        );
      }
    }
    const now = toTimestamp(ctx.clock.nowMs());
    const row = await insertDevice(db, {
      account_id: firewall.account_id,
      firewall_id: firewall.id,
      node_id: node.id,
      created: now,
      updated: now,
    });
    await recordEvent(db, ctx, actorOf(principal), {
      action: 'firewall_device_add',
      entity: firewallEntity(firewall),
      secondary: nodeSecondary(node),
    });
    devices.push({ ...row, node_label: node.label });
  }
  await applyFirewallsLater(
    db,
    ctx,
    firewall.account_id,
    devices.map((d) => d.node_id),
  );
  return devices;
}

/** A new firewall's `devices.nodes`, in the create's transaction; a node named twice is assigned once. */
export async function assignToNodes(
  db: Kysely<Database>,
  ctx: Context,
  principal: Principal,
  firewall: FirewallRow,
  nodeIds: readonly number[],
): Promise<void> {
  const nodes = nodeIds
    .map((id, i) => ({ id, field: `devices.nodes[${i}]` }))
    .filter((node, i) => nodeIds.indexOf(node.id) === i);
  await assign(db, ctx, principal, firewall, nodes);
}

/**
 * A node created with `firewall_id`, in the create's transaction once the node is written: the
 * firewall (read_write, as for a device add) is assigned to it, with its firewall_device_add event.
 * A new node holds no firewall yet, so an enabled one is its one active firewall.
 */
export async function assignToNewNode(
  db: Kysely<Database>,
  ctx: Context,
  principal: Principal,
  firewallId: number,
  nodeId: number,
): Promise<void> {
  const firewall = await firewallNamedIn(db, scopeOf(principal), firewallId, 'read_write', 'firewall_id');
  await assign(db, ctx, principal, firewall, [{ id: nodeId, field: 'firewall_id' }]);
}

export async function addDevice(
  ctx: Context,
  principal: Principal,
  firewallId: number,
  body: CreateDevice,
): Promise<FirewallDevice> {
  return inTransaction(ctx.db, async (trx) => {
    const firewall = await firewallFor(trx, scopeOf(principal), firewallId, 'read_write');
    const [device] = await assign(trx, ctx, principal, firewall, [{ id: body.id, field: 'id' }]);
    if (!device) throw fail.internal();
    return deviceRowToDevice(device);
  });
}

/** Takes the firewall off the node; other firewalls assigned to it stay in effect. Event firewall_device_remove. */
export async function removeDevice(ctx: Context, principal: Principal, firewallId: number, deviceId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const firewall = await firewallFor(trx, scopeOf(principal), firewallId, 'read_write');
    const row = await findDevice(trx, firewall.account_id, firewall.id, deviceId);
    // The device's node is not locked here: a node delete may remove the device meanwhile, and then
    // only one of the two records its removal.
    if (!row || !(await deleteDeviceRow(trx, firewall.account_id, row.id))) throw fail.notFound();
    await applyFirewallsLater(trx, ctx, firewall.account_id, [row.node_id]);
    await recordEvent(trx, ctx, actorOf(principal), {
      action: 'firewall_device_remove',
      entity: firewallEntity(firewall),
      secondary: nodeSecondary({ id: row.node_id, label: row.node_label }),
    });
  });
}

/**
 * A node is being deleted (in the caller's transaction, the node locked): every firewall leaves it,
 * each with its firewall_device_remove event.
 */
export async function removeNodeFromFirewalls(
  db: Kysely<Database>,
  ctx: Context,
  actor: Actor,
  node: { id: number; label: string; account_id: number },
): Promise<void> {
  const devices = await findDevicesOfNode(db, node.account_id, node.id);
  if (devices.length === 0) return;
  const deleted = await deleteDevicesOfNode(db, node.account_id, node.id);
  for (const device of devices.filter((d) => deleted.has(d.id))) {
    await recordEvent(db, ctx, actor, {
      action: 'firewall_device_remove',
      entity: firewallEntity({ id: device.firewall_id, label: device.firewall_label }),
      secondary: nodeSecondary(node),
    });
  }
}

/** The firewalls assigned to a node that the caller may see. */
export async function getNodeFirewalls(
  ctx: Context,
  scope: AccountScope,
  nodeId: number,
  request: PageRequest,
): Promise<Page<Firewall>> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  const page = await listNodeFirewalls(ctx.db, scope, node.id, request);
  return { ...page, data: await toFirewalls(ctx.db, scope.accountId, page.data) };
}
