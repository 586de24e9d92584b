import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { lockRows } from '../../../db/row-locks.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { type ErrorItem, fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import { loadGlobalGrants } from '../../account/user.service.ts';
import type { NodeTypeDataT, RegionDataT } from '../../catalog/catalog.ts';
import { setTags, tagsOf } from '../../tags/tag.service.ts';
import { captureNode, contentSize, type NodeContent, writeContent } from '../backups/backup-content.ts';
import { assertDiskFits } from '../compute/disk-capacity.ts';
import { assertDiskSpace } from '../disks/disk.service.ts';
import { findNode, type NodeRow } from '../node.repository.ts';
import type { Node } from '../node.schema.ts';
import { toNode } from '../node.service.ts';
import { assertSettled, claimSettledNode, nodeEntity, nodeFor, nodeNamedIn } from '../node-access.ts';
import { insertNewNode, placement } from '../node-create.service.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';
import { takeCloneSlot } from './clone.repository.ts';
import type { CloneNode } from './clone.schema.ts';

/** Clone operations from one source node that may run at once; the next one is refused (400). */
export const MAX_CONCURRENT_CLONES = 5;
/** The busy marker (and transition) of the node a clone writes to. */
export const CLONE_BUSY = 'node_clone';

const NEW_NODE_FIELDS = ['region', 'type', 'label', 'group', 'backups_enabled'] as const;

/**
 * What a clone copies: the configs named (all of them when `configs` is absent, none for an empty
 * list) with the disks they use, and the disks named besides. Ids that are not the source's are a 400.
 */
export function chooseContent(content: NodeContent, body: Pick<CloneNode, 'configs' | 'disks'>): NodeContent {
  const problems: ErrorItem[] = [];
  const configIds = new Set(content.configs.map((c) => c.id));
  const diskIds = new Set(content.disks.map((d) => d.id));
  (body.configs ?? []).forEach((id, i) => {
    if (!configIds.has(id)) problems.push({ field: `configs[${i}]`, reason: `Config ${id} is not a config of the source node` });
  });
  (body.disks ?? []).forEach((id, i) => {
    if (!diskIds.has(id)) problems.push({ field: `disks[${i}]`, reason: `Disk ${id} is not a disk of the source node` });
  });
  if (problems.length) throw fail.invalid(problems);
  const configs = body.configs === undefined ? content.configs : content.configs.filter((c) => body.configs?.includes(c.id));
  const chosen = new Set(body.disks ?? []);
  for (const config of configs) for (const device of Object.values(config.devices)) if (device) chosen.add(device.disk_id);
  return { ...content, configs, disks: content.disks.filter((d) => chosen.has(d.id)) };
}

type Target = { kind: 'existing'; nodeId: number } | { kind: 'new'; region: RegionDataT; type: NodeTypeDataT };

/** Checks the body before anything is written: a target node, or a new node the caller may create. */
async function resolveTarget(ctx: Context, principal: Principal, body: CloneNode): Promise<Target> {
  const nodeId = body.node_id ?? null;
  if (nodeId !== null) {
    const extra = NEW_NODE_FIELDS.filter((f) => body[f] !== undefined);
    if (extra.length) {
      throw fail.invalid(extra.map((f) => ({ field: f, reason: `${f} applies only when cloning to a new node` })));
    }
    return { kind: 'existing', nodeId };
  }
  if (body.region === undefined) throw fail.badRequest('region is required when cloning to a new node', 'region');
  if (body.type === undefined) throw fail.badRequest('type is required when cloning to a new node', 'type');
  const { region, type } = placement(ctx, body.region, body.type);
  if (!(await loadGlobalGrants(ctx.db, principal)).add_nodes) {
    throw fail.forbidden('Unauthorized: cloning to a new node needs the add_nodes grant');
  }
  return { kind: 'new', region, type };
}

/** The target node, claimed for the clone: an existing one (settled, with room) or a new one. */
async function claimTarget(
  db: Kysely<Database>,
  ctx: Context,
  scope: AccountScope,
  source: NodeRow,
  target: Target,
  body: CloneNode,
  need: number,
): Promise<{ node: NodeRow; returnsTo: string }> {
  const busy = { busy: CLONE_BUSY, status: 'cloning' as const, updated: toTimestamp(ctx.clock.nowMs()) };
  const tags = (await tagsOf(db, source.account_id, 'node', [source.id])).get(source.id) ?? [];
  if (target.kind === 'new') {
    if (need > target.type.disk) {
      throw fail.badRequest(`Type ${target.type.id} has ${target.type.disk} MB of disk; the clone needs ${need} MB`, 'type');
    }
    const node = await insertNewNode(db, ctx, scope, {
      region: target.region,
      type: target.type,
      label: body.label,
      group: body.group,
      tags,
      privateIp: false,
      backupsEnabled: body.backups_enabled === true,
      image: source.image,
      stackscriptId: null,
      rootPassHash: source.root_pass_hash,
      status: busy.status,
      busy: busy.busy,
      vendor: null,
      // Its disks are copied on the source's host, where it runs then.
      host: source.host,
    });
    // A clone is left powered off, as the copied disks have not been booted yet.
    return { node, returnsTo: 'offline' };
  }
  const node = await nodeNamedIn(db, scope, target.nodeId, 'read_write', 'node_id');
  if (node.id === source.id) throw fail.badRequest('A node cannot be cloned onto itself', 'node_id');
  if (node.host !== source.host) {
    throw fail.badRequest(
      `Node ${node.id} runs on another compute host than node ${source.id}: disks are copied within a host`,
      'node_id',
    );
  }
  await claimSettledNode(db, node, busy);
  await assertDiskSpace(db, ctx, node, need, 'node_id');
  const current = (await tagsOf(db, node.account_id, 'node', [node.id])).get(node.id) ?? [];
  await setTags(db, node.account_id, 'node', node.id, [...current, ...tags], busy.updated, ctx.config.limitTags);
  return { node, returnsTo: node.status };
}

/**
 * Copies a node's disks and configs (and tags) to another node of the account, existing or new
 * (event node_clone on the source, naming the target). The target is `cloning` until the copies are
 * written, then back as it was (a new node: `offline`). The source is not held: it stays usable, and
 * up to five clones from it may run at once; the sixth is refused, also among requests that arrive
 * together (the count is taken in one conditional update).
 */
export async function cloneNode(ctx: Context, principal: Principal, nodeId: number, body: CloneNode): Promise<Node> {
  const scope = scopeOf(principal);
  await nodeFor(ctx.db, scope, nodeId, 'read_write');
  const target = await resolveTarget(ctx, principal, body);
  return inTransaction(ctx.db, async (trx) => {
    await lockRows(trx, 'nodes', 'id', target.kind === 'existing' ? [nodeId, target.nodeId] : [nodeId]);
    const source = await nodeFor(trx, scope, nodeId, 'read_write');
    assertSettled(source);
    const content = chooseContent(await captureNode(trx, source), body);
    if (!(await takeCloneSlot(trx, source.account_id, source.id, MAX_CONCURRENT_CLONES))) {
      throw fail.badRequest(
        `At most ${MAX_CONCURRENT_CLONES} clones from one node may run at once; try again when one has finished`,
      );
    }
    const size = contentSize(content);
    const { node, returnsTo } = await claimTarget(trx, ctx, scope, source, target, body, size);
    const field = target.kind === 'new' ? 'type' : 'node_id';
    await assertDiskFits(trx, ctx, { sizeMb: size, field, nodeId: node.id });
    const disks = [...(await writeContent(trx, ctx, node, content)).diskIds];
    await startNodeOperation(trx, ctx, actorOf(principal), {
      node: source,
      action: 'node_clone',
      kind: NODE_OPS.clone,
      // Which of the source's disks each of the target's new disks is a copy of: [source disk, target disk].
      payload: { targetId: node.id, returnsTo, disks },
      secondary: { ...nodeEntity(node), id: node.id },
      dataMb: size,
    });
    return toNode(trx, ctx, (await findNode(trx, node.account_id, node.id)) ?? node);
  });
}
