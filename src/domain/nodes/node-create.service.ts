import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail, Refusals } from '../../errors.ts';
import { randomHex } from '../../random.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { grantToCreator } from '../account/grant-entities.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import type { NodeTypeDataT, RegionDataT } from '../catalog/catalog.ts';
import { recordEvent } from '../events/event.service.ts';
import { assignToNewNode } from '../firewalls/firewall-device.service.ts';
import { imageSecondary } from '../images/image-deploy.ts';
import { giveNodeAddresses } from '../networking/node-addresses.service.ts';
import { assertMayTag, setTags } from '../tags/tag.service.ts';
import { startAutomaticBackups } from './backups/backup-schedule.service.ts';
import { assertDiskFits } from './compute/disk-capacity.ts';
import { assertMemoryFits, placeNode } from './compute/host-capacity.ts';
import type { Interface } from './configs/config.schema.ts';
import { insertNode, type NodeRow, updateNodeRow } from './node.repository.ts';
import type { CreateNode, Node, NodeStatus } from './node.schema.ts';
import { nodeRowToNode } from './node.service.ts';
import { nodeEntity } from './node-access.ts';
import { checkDeployment } from './node-deploy.ts';
import { checkInterfaces } from './node-interfaces.ts';
import { nodePlace } from './node-json.ts';
import { assignDefaultLabel, defaultLabelBase } from './node-label.ts';
import { NODE_OPS, startNodeOperation } from './node-operations.ts';
import { buildNode, type NodeSource, resolveNodeSource } from './node-source.ts';

const GPU_CAPABILITY = 'GPU Nodes';

/**
 * Where a node is placed: the type and region must exist (400 naming each field that is wrong, in the
 * live service's order and words, which SDK tests compare whole), the region must
 * not have an outage, and GPU types go only where the region offers them. Creation, clones,
 * resizes and migrations all place nodes through here.
 */
export function placement(ctx: Context, regionId: string, typeId: string): { region: RegionDataT; type: NodeTypeDataT } {
  const region = ctx.catalog.region(regionId);
  const type = ctx.catalog.type(typeId);
  if (!region || !type) {
    throw fail.invalid([
      ...(type ? [] : [{ field: 'type', reason: 'A valid plan type by that ID was not found' }]),
      ...(region ? [] : [{ field: 'region', reason: 'region is not valid' }]),
    ]);
  }
  if (region.status === 'outage') {
    throw fail.badRequest(`Region ${region.id} has an outage; no nodes can be placed there until it is resolved`, 'region');
  }
  if (type.class === 'gpu' && !region.capabilities.includes(GPU_CAPABILITY)) {
    throw fail.badRequest(`Region ${region.id} offers no GPU nodes`, 'type');
  }
  return { region, type };
}

function vendorOf(source: NodeSource): string | null {
  return source.kind === 'image' ? source.deployment.image.vendor : null;
}

/** Alerts a new node starts with; the CPU threshold is per core, as usage is summed over cores. */
function defaultAlerts(type: NodeTypeDataT) {
  return {
    alerts_cpu: 90 * type.vcpus,
    alerts_io: 10000,
    alerts_network_in: 10,
    alerts_network_out: 10,
    alerts_transfer_quota: 80,
  };
}

/** A node about to be inserted: where, what, and the status and operation it starts in. */
export interface NewNode {
  region: RegionDataT;
  type: NodeTypeDataT;
  label: string | undefined;
  group: string | undefined;
  tags: readonly string[];
  privateIp: boolean;
  backupsEnabled: boolean;
  image: string | null;
  stackscriptId: number | null;
  rootPassHash: string | null;
  status: NodeStatus;
  /** The operation that builds it (`node_provision`, `node_clone`), or null for a node ready at once. */
  busy: string | null;
  /** The image vendor its default label starts with, if any. */
  vendor: string | null;
  /** The compute host (agent) it is placed on; null or absent without agents. */
  host?: string | null;
}

/**
 * Inserts a node with its label (a unique default when none is given), addresses, tags, the
 * creator's grant and, when asked for, the backup service; no disks, configs or event. In the
 * caller's transaction; node creation and clones to a new node both come here.
 */
export async function insertNewNode(db: Kysely<Database>, ctx: Context, scope: AccountScope, spec: NewNode): Promise<NodeRow> {
  const now = toTimestamp(ctx.clock.nowMs());
  const inserted = await insertNode(db, {
    account_id: scope.accountId,
    // Without a label, a placeholder no user label can equal holds the place until the id is known.
    label: spec.label ?? `~${randomHex(ctx.random, 8)}`,
    node_group: spec.group ?? '',
    region: spec.region.id,
    type: spec.type.id,
    image: spec.image,
    stackscript_id: spec.stackscriptId,
    status: spec.status,
    hypervisor: 'kvm',
    ipv6: null,
    ...defaultAlerts(spec.type),
    backups_enabled: 0,
    backups_day: null,
    backups_window: null,
    backups_last_successful: null,
    watchdog_enabled: 1,
    watchdog_boots: '[]',
    last_booted_config_id: null,
    busy: spec.busy,
    root_pass_hash: spec.rootPassHash,
    host: spec.host ?? null,
    created: now,
    updated: now,
  });
  if (!inserted) throw fail.badRequest(`Label must be unique among your nodes: ${spec.label} is taken`, 'label');
  let node =
    spec.label === undefined ? await assignDefaultLabel(db, inserted, defaultLabelBase(spec.vendor, spec.region.id)) : inserted;
  const ipv6 = await giveNodeAddresses(db, ctx, { accountId: node.account_id, nodeId: node.id }, spec.region, spec.privateIp);
  if (spec.tags.length)
    await setTags(db, node.account_id, 'node', node.id, spec.tags, now, ctx.config.limitTags, { fresh: true });
  // Last, so that the row it gives back has the lists the database keeps on it (addresses, tags).
  node = await updateNodeRow(db, node.account_id, node.id, { ipv6 });
  await grantToCreator(db, scope, 'node', node.id);
  return spec.backupsEnabled ? startAutomaticBackups(db, ctx, node) : node;
}

/** A create request checked before any transaction: where the node goes and what it is built from. */
interface CheckedCreate {
  body: CreateNode;
  region: RegionDataT;
  type: NodeTypeDataT;
  source: NodeSource;
  interfaces: Interface[];
}

/** Every check of a create request that needs no transaction (placement, tags, source, interfaces). */
async function checkCreate(ctx: Context, principal: Principal, body: CreateNode): Promise<CheckedCreate> {
  assertMayTag(principal, body.tags);
  // Where the node goes and what it is made from are checked apart: a request wrong in both is told of both.
  const refusals = new Refusals();
  const placed = await refusals.check(() => placement(ctx, body.region, body.type));
  const scope = scopeOf(principal);
  const source = placed ? await refusals.check(() => resolveNodeSource(ctx.db, ctx, scope, body, placed.type)) : undefined;
  // Without a type there is no size to check the image against; the image and its password still are.
  if (!placed) await refusals.check(() => checkDeployment(ctx.db, ctx, scope, body));
  refusals.throwIfAny();
  if (!placed || !source) throw fail.internal();
  const { region, type } = placed;
  const interfaces = checkInterfaces(body.interfaces ?? [], region);
  if (interfaces.length > 0 && source.kind === 'empty') {
    throw fail.badRequest('Interfaces go on the config made from an image; an empty node has none', 'interfaces');
  }
  return { body, region, type, source, interfaces };
}

/**
 * Writes a checked node in the caller's transaction: node, addresses, tags, disks, config, its event
 * and job, and the firewall it asked for.
 */
async function writeNode(db: Kysely<Database>, ctx: Context, principal: Principal, checked: CheckedCreate): Promise<NodeRow> {
  const { body, region, type, source, interfaces } = checked;
  const built = source.kind !== 'empty';
  if (built && body.booted !== false) await assertMemoryFits(db, ctx, { typeId: type.id, nodeId: null });
  if (built) await assertDiskFits(db, ctx, { sizeMb: type.disk, field: 'type' });
  const host = await placeNode(db, ctx, { region: region.id, typeId: type.id, boots: built && body.booted !== false, built });
  const node = await insertNewNode(db, ctx, scopeOf(principal), {
    region,
    type,
    label: body.label,
    group: body.group,
    tags: body.tags ?? [],
    privateIp: body.private_ip === true,
    backupsEnabled: body.backups_enabled === true,
    image: source.kind === 'image' ? source.deployment.image.id : null,
    stackscriptId: source.kind === 'image' ? source.deployment.stackscriptId : null,
    rootPassHash:
      source.kind === 'image' ? source.deployment.rootPassHash : source.kind === 'backup' ? source.backup.rootPassHash : null,
    status: built ? 'provisioning' : 'offline',
    busy: built ? 'node_provision' : null,
    vendor: vendorOf(source),
    host,
  });
  const { configId, plan } = await buildNode(db, ctx, node, source, interfaces);
  const actor = actorOf(principal);
  if (built) {
    await startNodeOperation(db, ctx, actor, {
      node,
      action: 'node_create',
      kind: NODE_OPS.provision,
      // Made from an image, the event names it; from a backup, nothing.
      secondary: source.kind === 'image' ? imageSecondary(source.deployment.image) : null,
      payload: {
        configId,
        booted: body.booted ?? true,
        deploy: source.kind === 'image' ? source.deployment.access : null,
        // From a backup: real nodes get the backup's disk copies (backup-copies.ts).
        ...(plan && { plan }),
      },
    });
  } else {
    await recordEvent(db, ctx, actor, { action: 'node_create', entity: nodeEntity(node), status: 'finished' });
  }
  // After the node's own event; a firewall the caller may not use refuses the whole create.
  if (body.firewall_id != null) await assignToNewNode(db, ctx, principal, body.firewall_id, node.id);
  return node;
}

/**
 * Creates a node (the route has checked the add_nodes grant). Everything is checked before the
 * transaction; in it the node, its addresses, tags, disks, config and event are written together. A
 * node built from an image or backup is `provisioning` until its job finishes; an empty one is
 * `offline` at once.
 */
export async function createNode(ctx: Context, principal: Principal, body: CreateNode): Promise<Node> {
  const checked = await checkCreate(ctx, principal, body);
  // The row insertNewNode gives is the node as written: nothing after it in the transaction changes it.
  const row = await inTransaction(ctx.db, (trx) => writeNode(trx, ctx, principal, checked));
  return nodeRowToNode(row, ctx.catalog.type(row.type), nodePlace(ctx.catalog, row.region));
}

/**
 * The bulk path, for operator tools (the benchmark's seeding, imports): many create requests of one
 * principal, each checked and written exactly as createNode does it, all written in one
 * transaction, so one refused request writes none of them. Returns the rows, in request order.
 * Sharing the transaction is what makes it faster: each commit writes every page it touched.
 */
export async function createNodes(ctx: Context, principal: Principal, bodies: readonly CreateNode[]): Promise<NodeRow[]> {
  const checked: CheckedCreate[] = [];
  for (const body of bodies) checked.push(await checkCreate(ctx, principal, body));
  return inTransaction(ctx.db, async (trx) => {
    const rows: NodeRow[] = [];
    for (const one of checked) rows.push(await writeNode(trx, ctx, principal, one));
    return rows;
  });
}
