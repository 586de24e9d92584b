import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import { randomHex } from '../../random.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { grantToCreator } from '../account/grant-entities.ts';
import { actorOf, type Principal, scopeOf } from '../account/principal.ts';
import type { NodeTypeDataT, RegionDataT } from '../catalog/catalog.ts';
import { recordEvent } from '../events/event.service.ts';
import { allocateAddress } from '../networking/ipam.ts';
import { setEntityTags } from '../tags/tag.repository.ts';
import { insertNode, type NodeRow, updateNodeRow } from './node.repository.ts';
import type { CreateNode, Node } from './node.schema.ts';
import { toNode } from './node.service.ts';
import { nodeEntity } from './node-access.ts';
import { checkInterfaces } from './node-interfaces.ts';
import { assignDefaultLabel, defaultLabelBase } from './node-label.ts';
import { NODE_OPS, startNodeOperation } from './node-operations.ts';
import { buildNode, type NodeSource, resolveNodeSource } from './node-source.ts';

const GPU_CAPABILITY = 'GPU Nodes';

function catalogEntries(ctx: Context, body: CreateNode): { region: RegionDataT; type: NodeTypeDataT } {
  const region = ctx.catalog.region(body.region);
  if (!region) throw fail.badRequest(`Region ${body.region} does not exist`, 'region');
  if (region.status === 'outage') {
    throw fail.badRequest(`Region ${region.id} has an outage; nodes cannot be created there until it is resolved`, 'region');
  }
  const type = ctx.catalog.type(body.type);
  if (!type) throw fail.badRequest(`Node type ${body.type} does not exist`, 'type');
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

/** One public IPv4 and a SLAAC IPv6 address for every node, and a private IPv4 when asked for. */
async function allocateNodeAddresses(db: Kysely<Database>, ctx: Context, node: NodeRow, region: RegionDataT, privateIp: boolean) {
  const spec = { accountId: node.account_id, nodeId: node.id, region };
  await allocateAddress(db, ctx, { ...spec, pool: 'public-ipv4' });
  const slaac = await allocateAddress(db, ctx, { ...spec, pool: 'slaac' });
  if (privateIp) await allocateAddress(db, ctx, { ...spec, pool: 'private-ipv4' });
  return slaac.address;
}

/**
 * Creates a node (the route has checked the add_nodes grant). Everything is checked before the
 * transaction; in it the node, its addresses, tags, disks, config and event are written together. A
 * node built from an image or backup is `provisioning` until its job finishes; an empty one is
 * `offline` at once.
 */
export async function createNode(ctx: Context, principal: Principal, body: CreateNode): Promise<Node> {
  const scope = scopeOf(principal);
  const { region, type } = catalogEntries(ctx, body);
  if (body.tags?.length && principal.restricted) throw fail.forbidden('Unauthorized: only unrestricted users may add tags');
  const source = await resolveNodeSource(ctx.db, ctx, scope, body, type);
  const interfaces = checkInterfaces(body.interfaces ?? [], region);
  if (interfaces.length > 0 && source.kind === 'empty') {
    throw fail.badRequest('Interfaces go on the config made from an image; an empty node has none', 'interfaces');
  }
  const built = source.kind !== 'empty';
  return ctx.db.transaction().execute(async (trx) => {
    const now = toTimestamp(ctx.clock.nowMs());
    const inserted = await insertNode(trx, {
      account_id: principal.accountId,
      // Without a label, a placeholder no user label can equal holds the place until the id is known.
      label: body.label ?? `~${randomHex(ctx.random, 8)}`,
      node_group: body.group ?? '',
      region: region.id,
      type: type.id,
      image: source.kind === 'image' ? source.deployment.image.id : null,
      stackscript_id: source.kind === 'image' ? source.deployment.stackscriptId : null,
      status: built ? 'provisioning' : 'offline',
      hypervisor: 'kvm',
      ipv6: null,
      ...defaultAlerts(type),
      backups_enabled: body.backups_enabled ? 1 : 0,
      backups_day: null,
      backups_window: null,
      backups_last_successful: null,
      watchdog_enabled: 1,
      watchdog_boots: '[]',
      last_booted_config_id: null,
      busy: built ? 'node_provision' : null,
      root_pass_hash:
        source.kind === 'image' ? source.deployment.rootPassHash : source.kind === 'backup' ? source.backup.rootPassHash : null,
      created: now,
      updated: now,
    });
    if (!inserted) throw fail.badRequest(`Label must be unique among your nodes: ${body.label} is taken`, 'label');
    let node =
      body.label === undefined
        ? await assignDefaultLabel(trx, inserted, defaultLabelBase(vendorOf(source), region.id))
        : inserted;
    const ipv6 = await allocateNodeAddresses(trx, ctx, node, region, body.private_ip === true);
    node = await updateNodeRow(trx, node.account_id, node.id, { ipv6 });
    if (body.tags?.length) await setEntityTags(trx, node.account_id, 'node', node.id, body.tags, now);
    await grantToCreator(trx, scope, 'node', node.id);
    const { configId } = await buildNode(trx, ctx, node, source, interfaces);
    const actor = actorOf(principal);
    if (built) {
      await startNodeOperation(trx, ctx, actor, {
        node,
        action: 'node_create',
        kind: NODE_OPS.provision,
        payload: { configId, booted: body.booted ?? true },
      });
    } else {
      await recordEvent(trx, ctx, actor, { action: 'node_create', entity: nodeEntity(node) });
    }
    return toNode(trx, ctx, node);
  });
}
