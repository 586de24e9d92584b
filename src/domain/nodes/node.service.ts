import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { readList } from '../../db/json-array.ts';
import type { JsonPage, Page, PageRequest } from '../../db/paginate.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { revokeEntityGrants } from '../account/grant-entities.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import type { NodeTypeDataT } from '../catalog/catalog.ts';
import { recordEvent } from '../events/event.service.ts';
import { removeNodeFromFirewalls } from '../firewalls/firewall-device.service.ts';
import { keepAutomaticImage } from '../images/automatic-image.service.ts';
import { releaseNodeAddresses } from '../networking/node-addresses.service.ts';
import { releaseStackScriptDeployment } from '../stackscripts/stackscript-deploy.ts';
import { removeTags, retag } from '../tags/tag.service.ts';
import { findBackupsOfNode } from './backups/backup.repository.ts';
import { discardBackupCopies } from './backups/backup-copies.ts';
import { discardMachine } from './compute/machine.jobs.ts';
import { type DiskRow, findDisks } from './disks/disk.repository.ts';
import {
  deleteNodeRow,
  findNodeView,
  findNodeViewsOfAccount,
  listNodes,
  listNodesJson,
  listNodeValues,
  type NodeRow,
  type NodeViewRow,
  updateNodeRow,
} from './node.repository.ts';
import type { Node, UpdateNode } from './node.schema.ts';
import { nodeEntity, nodeFor } from './node-access.ts';
import { type NodePlace, nodeJson, nodePlace } from './node-json.ts';
import { assertLabelFree } from './node-label.ts';
import { NODE_OFFER } from './node-offer.ts';

/** The disk an automatic image keeps: the largest one that is not swap. */
function mainDisk(disks: DiskRow[]): DiskRow | undefined {
  return disks.filter((d) => d.filesystem !== 'swap').sort((a, b) => b.size - a.size || a.id - b.id)[0];
}

/** A node's API object from its view row (whose lists hold its tags, and its IPv4 addresses public first). */
export function nodeRowToNode(row: NodeViewRow, type: NodeTypeDataT | undefined, place: NodePlace): Node {
  return {
    id: row.id,
    label: row.label,
    region: row.region,
    image: row.image,
    type: row.type,
    group: row.node_group,
    tags: readList<string>(row.tag_list),
    status: row.status as Node['status'],
    hypervisor: 'kvm',
    created: row.created,
    updated: row.updated,
    ipv4: readList<string>(row.ipv4_list),
    ipv6: row.ipv6 === null ? null : `${row.ipv6}/128`,
    specs: {
      disk: type?.disk ?? 0,
      memory: type?.memory ?? 0,
      vcpus: type?.vcpus ?? 0,
      transfer: type?.transfer ?? 0,
      gpus: type?.gpus ?? 0,
      accelerated_devices: 0,
    },
    alerts: {
      cpu: row.alerts_cpu,
      io: row.alerts_io,
      network_in: row.alerts_network_in,
      network_out: row.alerts_network_out,
      transfer_quota: row.alerts_transfer_quota,
      system_alerts: [],
      user_alerts: [],
    },
    backups: {
      enabled: row.backups_enabled === 1,
      schedule: {
        day: row.backups_day as Node['backups']['schedule']['day'],
        window: row.backups_window as Node['backups']['schedule']['window'],
      },
      last_successful: row.backups_last_successful,
      available: row.backups_enabled === 1 && row.backups_last_successful !== null,
    },
    watchdog_enabled: row.watchdog_enabled === 1,
    site_type: place.siteType,
    host_uuid: place.hostUuid,
    ...NODE_OFFER,
  };
}

const toNodes = (ctx: Context, rows: readonly NodeViewRow[]): Node[] =>
  rows.map((row) => nodeRowToNode(row, ctx.catalog.type(row.type), nodePlace(ctx.catalog, row.region)));

/** A node's API object as it is now (after a change, in the change's transaction). */
export async function toNode(db: Kysely<Database>, ctx: Context, row: NodeRow): Promise<Node> {
  const view = await findNodeView(db, { accountId: row.account_id, restrictedUserId: null }, row.id);
  if (!view) throw fail.internal();
  return nodeRowToNode(view, ctx.catalog.type(view.type), nodePlace(ctx.catalog, view.region));
}

export async function getNodes(ctx: Context, scope: AccountScope, request: PageRequest): Promise<Page<Node>> {
  const page = await listNodes(ctx.db, scope, request);
  return { ...page, data: toNodes(ctx, page.data) };
}

/**
 * The page getNodes gives, as the JSON text the list route sends. On SQLite the database writes it;
 * PostgreSQL's JSON functions cost it three times what the rows cost, so there each node is written
 * from its row's values (nodeJson), with no object made of it. Each way measured faster than the
 * other on its own database (docs/benchmark.md, the hot path).
 */
export async function getNodesPage(ctx: Context, scope: AccountScope, request: PageRequest): Promise<JsonPage> {
  if (ctx.dbKind !== 'postgres') return listNodesJson(ctx.db, scope, request);
  const page = await listNodeValues(ctx.db, scope, request);
  return { ...page, data: `[${page.data.map((values) => nodeJson(values, ctx.catalog)).join(',')}]` };
}

/** Some of the account's nodes as the API shows them, by id (what a tag's objects list shows). */
export async function nodesWithIds(
  db: Kysely<Database>,
  ctx: Context,
  accountId: number,
  ids: readonly number[],
): Promise<Node[]> {
  return toNodes(ctx, await findNodeViewsOfAccount(db, accountId, ids));
}

/** One statement: the node, its tags and its addresses, as the scope may see it. */
export async function getNode(ctx: Context, scope: AccountScope, nodeId: number): Promise<Node> {
  const row = await findNodeView(ctx.db, scope, nodeId);
  if (!row) throw fail.notFound();
  return nodeRowToNode(row, ctx.catalog.type(row.type), nodePlace(ctx.catalog, row.region));
}

/** Changes the updatable fields only (label, group, tags, alerts, backup schedule, watchdog); event node_update. */
export async function updateNode(ctx: Context, principal: Principal, nodeId: number, body: UpdateNode): Promise<Node> {
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const now = toTimestamp(ctx.clock.nowMs());
    if (body.tags !== undefined) {
      await retag(trx, principal.restricted, node.account_id, 'node', node.id, body.tags, now, ctx.config.limitTags);
    }
    if (body.label !== undefined && body.label !== node.label) await assertLabelFree(trx, node.account_id, body.label, node.id);
    const alerts = body.alerts ?? {};
    const schedule = body.backups?.schedule ?? {};
    const row = await updateNodeRow(trx, node.account_id, node.id, {
      label: body.label,
      node_group: body.group,
      watchdog_enabled: body.watchdog_enabled === undefined ? undefined : body.watchdog_enabled ? 1 : 0,
      alerts_cpu: alerts.cpu,
      alerts_io: alerts.io,
      alerts_network_in: alerts.network_in,
      alerts_network_out: alerts.network_out,
      alerts_transfer_quota: alerts.transfer_quota,
      backups_day: schedule.day,
      backups_window: schedule.window,
      updated: now,
    });
    await recordEvent(trx, ctx, actorOf(principal), { action: 'node_update', entity: nodeEntity(row) });
    return toNode(trx, ctx, row);
  });
}

/**
 * Deletes a node at once, whatever it is doing: its addresses go back to their pools, its firewalls
 * leave it (each with a firewall_device_remove event), its disks, configs and backups go with it
 * (foreign keys), and its tags and grants are removed. Jobs still queued for it find no node and do
 * nothing. Ids are never reused.
 */
export async function deleteNode(ctx: Context, principal: Principal, nodeId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const disks = await findDisks(trx, node.account_id, node.id);
    const main = mainDisk(disks);
    if (main) {
      await keepAutomaticImage(trx, ctx, {
        accountId: node.account_id,
        nodeId: node.id,
        nodeLabel: node.label,
        region: node.region,
        disk: main,
        createdBy: principal.username,
      });
    }
    await releaseNodeAddresses(trx, { accountId: node.account_id, nodeId: node.id });
    await removeNodeFromFirewalls(trx, ctx, actorOf(principal), node);
    await removeTags(trx, node.account_id, 'node', node.id);
    await revokeEntityGrants(trx, node.account_id, 'node', node.id);
    if (node.stackscript_id !== null) await releaseStackScriptDeployment(trx, node.stackscript_id);
    // Its backups go with it (the rows by cascade).
    await discardBackupCopies(trx, ctx, await findBackupsOfNode(trx, node.account_id, node.id));
    await deleteNodeRow(trx, node.account_id, node.id);
    await discardMachine(trx, ctx, node, disks);
    await recordEvent(trx, ctx, actorOf(principal), { action: 'node_delete', entity: nodeEntity(node) });
  });
}
