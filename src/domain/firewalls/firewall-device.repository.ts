import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import type { FirewallRow } from './firewall.repository.ts';
import type { FirewallDeviceTable } from './firewall.table.ts';

export type DeviceRow = Selectable<FirewallDeviceTable>;
/** A device with the label of its node, as the API shows it. */
export type DeviceViewRow = DeviceRow & { node_label: string };

/** The reference's filterable device fields. */
const FILTER: FilterSpec = {
  fields: {
    id: { column: 'firewall_devices.id', type: 'integer' },
    created: { column: 'firewall_devices.created', type: 'datetime' },
    updated: { column: 'firewall_devices.updated', type: 'datetime' },
  },
  defaultOrder: { column: 'firewall_devices.id', direction: 'asc' },
  tiebreak: 'firewall_devices.id',
};

function devicesOf(db: Kysely<Database>, accountId: number, firewallId: number) {
  return db
    .selectFrom('firewall_devices')
    .innerJoin('nodes', 'nodes.id', 'firewall_devices.node_id')
    .selectAll('firewall_devices')
    .select('nodes.label as node_label')
    .where('firewall_devices.account_id', '=', accountId)
    .where('firewall_devices.firewall_id', '=', firewallId);
}

/** The nodes the account's firewalls among `firewallIds` are assigned to, in the order they were assigned. */
export function findEntitiesOfFirewalls(
  db: Kysely<Database>,
  accountId: number,
  firewallIds: readonly number[],
): Promise<{ firewall_id: number; node_id: number; node_label: string }[]> {
  if (firewallIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('firewall_devices')
    .innerJoin('nodes', 'nodes.id', 'firewall_devices.node_id')
    .select(['firewall_devices.firewall_id', 'firewall_devices.node_id', 'nodes.label as node_label'])
    .where('firewall_devices.account_id', '=', accountId)
    .where('firewall_devices.firewall_id', 'in', [...firewallIds])
    .orderBy('firewall_devices.id')
    .execute();
}

export function listDevices(
  db: Kysely<Database>,
  accountId: number,
  firewallId: number,
  request: PageRequest,
): Promise<Page<DeviceViewRow>> {
  return paginate(devicesOf(db, accountId, firewallId), request, FILTER);
}

export function findDevice(
  db: Kysely<Database>,
  accountId: number,
  firewallId: number,
  deviceId: number,
): Promise<DeviceViewRow | undefined> {
  return devicesOf(db, accountId, firewallId).where('firewall_devices.id', '=', deviceId).executeTakeFirst();
}

/** Whether the firewall is already assigned to the node. */
export async function deviceExists(db: Kysely<Database>, firewallId: number, nodeId: number): Promise<boolean> {
  const row = await db
    .selectFrom('firewall_devices')
    .select('id')
    .where('firewall_id', '=', firewallId)
    .where('node_id', '=', nodeId)
    .executeTakeFirst();
  return row !== undefined;
}

export function insertDevice(db: Kysely<Database>, values: Insertable<FirewallDeviceTable>): Promise<DeviceRow> {
  return db.insertInto('firewall_devices').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Whether the device was there to delete (a concurrent node delete may have taken it first). */
export async function deleteDeviceRow(db: Kysely<Database>, accountId: number, deviceId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('firewall_devices')
    .where('account_id', '=', accountId)
    .where('id', '=', deviceId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The nodes a firewall is assigned to. */
export async function findNodeIdsOfFirewall(db: Kysely<Database>, accountId: number, firewallId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('firewall_devices')
    .select('node_id')
    .where('account_id', '=', accountId)
    .where('firewall_id', '=', firewallId)
    .orderBy('node_id')
    .execute();
  return rows.map((r) => r.node_id);
}

/** An enabled firewall other than `exceptFirewallId` assigned to one of the nodes, if any. */
export function findEnabledOnNodes(
  db: Kysely<Database>,
  accountId: number,
  nodeIds: readonly number[],
  exceptFirewallId: number,
): Promise<{ node_id: number; firewall_id: number; label: string } | undefined> {
  if (nodeIds.length === 0) return Promise.resolve(undefined);
  return db
    .selectFrom('firewall_devices')
    .innerJoin('firewalls', 'firewalls.id', 'firewall_devices.firewall_id')
    .select(['firewall_devices.node_id', 'firewall_devices.firewall_id', 'firewalls.label'])
    .where('firewall_devices.account_id', '=', accountId)
    .where('firewall_devices.node_id', 'in', [...nodeIds])
    .where('firewalls.status', '=', 'enabled')
    .where('firewalls.id', '<>', exceptFirewallId)
    .orderBy('firewall_devices.node_id')
    .executeTakeFirst();
}

/** A node's devices with their firewalls' labels (for the events of a node that goes away). */
export function findDevicesOfNode(
  db: Kysely<Database>,
  accountId: number,
  nodeId: number,
): Promise<(DeviceRow & { firewall_label: string })[]> {
  return db
    .selectFrom('firewall_devices')
    .innerJoin('firewalls', 'firewalls.id', 'firewall_devices.firewall_id')
    .selectAll('firewall_devices')
    .select('firewalls.label as firewall_label')
    .where('firewall_devices.account_id', '=', accountId)
    .where('firewall_devices.node_id', '=', nodeId)
    .orderBy('firewall_devices.id')
    .execute();
}

/** The ids of the devices deleted: those a concurrent device delete had not taken first. */
export async function deleteDevicesOfNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<Set<number>> {
  const rows = await db
    .deleteFrom('firewall_devices')
    .where('account_id', '=', accountId)
    .where('node_id', '=', nodeId)
    .returning('id')
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** The enabled firewall assigned to a node (at most one), if any. */
export function findEnabledFirewallOfNode(
  db: Kysely<Database>,
  accountId: number,
  nodeId: number,
): Promise<Pick<FirewallRow, 'id' | 'label' | 'rules'> | undefined> {
  return db
    .selectFrom('firewall_devices')
    .innerJoin('firewalls', 'firewalls.id', 'firewall_devices.firewall_id')
    .select(['firewalls.id', 'firewalls.label', 'firewalls.rules'])
    .where('firewall_devices.account_id', '=', accountId)
    .where('firewall_devices.node_id', '=', nodeId)
    .where('firewalls.status', '=', 'enabled')
    .orderBy('firewalls.id')
    .executeTakeFirst();
}
