import type { Kysely } from 'kysely';
import { chooseHost, hostIsLive, hostMemoryLeftMb, hostServes, listHosts } from '../../../compute/agents/host-registry.ts';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { lockName } from '../../../db/row-locks.ts';
import { fail } from '../../../errors.ts';
import { machineKey } from './compute-keys.ts';
import { countNodesByHostAndType, findNodePlacement, sumDiskSizesByHost } from './node-host.repository.ts';

/**
 * What every check of the host's memory or storage takes turns on, in the transaction that then
 * writes what it allowed (PostgreSQL; SQLite's one writer takes turns already).
 */
export const CAPACITY_LOCK = 'compute-capacity';

/** Nodes in these statuses hold no machine (and no memory). */
const POWERED_OFF = ['offline', 'stopped'];

/** Memory (MB) the machines of every node that is up or on its way up take, by their types. */
async function memoryInUse(db: Kysely<Database>, ctx: Context, exceptNodeId: number | null): Promise<number> {
  let query = db
    .selectFrom('nodes')
    .select(['type', db.fn.countAll<number | string>().as('n')])
    .where('status', 'not in', POWERED_OFF)
    .groupBy('type');
  if (exceptNodeId !== null) query = query.where('id', '!=', exceptNodeId);
  const rows = await query.execute();
  return rows.reduce((sum, row) => sum + (ctx.catalog.type(row.type)?.memory ?? 0) * Number(row.n), 0);
}

/** The same, per compute host (agents). */
async function memoryInUseByHost(db: Kysely<Database>, ctx: Context, exceptNodeId: number | null): Promise<Map<string, number>> {
  const used = new Map<string, number>();
  for (const row of await countNodesByHostAndType(db, POWERED_OFF, exceptNodeId)) {
    used.set(row.host, (used.get(row.host) ?? 0) + (ctx.catalog.type(row.type)?.memory ?? 0) * row.n);
  }
  return used;
}

/** Whether nodes run on compute agents (CUMULO_COMPUTE=agents) rather than in this process or simulated. */
export function onAgents(ctx: Context): boolean {
  return ctx.config.compute === 'agents';
}

/**
 * With agents, the host a new node goes on: a live agent serving the region with room for the
 * type's disk when the node is built now (beside the disks of the nodes placed on it; an empty node
 * has none yet, and each disk made on it later is checked on its host) and, when it boots now, its
 * memory (the agent's last report and the nodes already placed on it); a 400 on `region` (no agent
 * serves it) or `type` (none has room) otherwise. Null without agents. Call in the transaction that
 * inserts the node: placements take turns.
 */
export async function placeNode(
  db: Kysely<Database>,
  ctx: Context,
  spec: { region: string; typeId: string; boots: boolean; built: boolean; nodeId?: number },
): Promise<string | null> {
  if (!onAgents(ctx)) return null;
  await lockName(db, CAPACITY_LOCK);
  const type = ctx.catalog.type(spec.typeId);
  const chosen = chooseHost(await listHosts(db), {
    region: spec.region,
    memoryMb: spec.boots ? (type?.memory ?? 0) : 0,
    diskMb: spec.built ? (type?.disk ?? 0) : 0,
    usedMb: await memoryInUseByHost(db, ctx, spec.nodeId ?? null),
    diskPromisedMb: await sumDiskSizesByHost(db),
    diskOvercommit: ctx.config.diskOvercommit,
    nowMs: Date.now(),
    offlineMs: ctx.config.agentOfflineMs,
  });
  if ('host' in chosen) return chosen.host.name;
  throw fail.badRequest(chosen.reason, chosen.lacking === 'region' ? 'region' : 'type');
}

/** With agents: the node's memory must fit on its host, which must be reporting. */
async function assertHostMemoryFits(db: Kysely<Database>, ctx: Context, spec: { typeId: string; nodeId: number }) {
  const node = await findNodePlacement(db, spec.nodeId);
  if (!node) return;
  const host = node.host;
  // Made before agents were in use: its disk files are where it ran then, on no agent.
  if (host === null) throw fail.badRequest('This node was made before compute agents and is on none of them');
  const report = (await listHosts(db)).find((h) => h.name === host);
  if (!report || !hostIsLive(report, Date.now(), ctx.config.agentOfflineMs)) {
    throw fail.badRequest(`This node's compute host ${host} is not reporting: its agent is down`);
  }
  const needed = ctx.catalog.type(spec.typeId)?.memory ?? 0;
  // A rebuild of a running node: the memory its machine takes now is its own to take again.
  const own = machineKey(spec.nodeId) in report.machines ? needed : 0;
  const left = hostMemoryLeftMb(
    { ...report, memoryFreeMb: report.memoryFreeMb + own },
    await memoryInUseByHost(db, ctx, spec.nodeId),
  );
  if (needed > left) {
    throw fail.badRequest(
      `Not enough memory for this node on its host ${host}: it needs ${needed} MB and ${Math.max(0, left)} MB is free`,
      'type',
    );
  }
}

/**
 * With real nodes, a node of this type may come up only if its memory fits in what the operator
 * gives nodes (CUMULO_COMPUTE_MEMORY) beside every other node that is up (with agents: on its host,
 * by the agent's report): a 400 otherwise, before anything is written. Call in the transaction that
 * then marks the node as coming up; concurrent callers take turns, so two boots never both take the
 * last memory. Simulated nodes take none; a new node on agents was checked by its placement.
 */
export async function assertMemoryFits(
  db: Kysely<Database>,
  ctx: Context,
  spec: { typeId: string; nodeId: number | null },
): Promise<void> {
  if (ctx.compute === null) return;
  await lockName(db, CAPACITY_LOCK);
  if (onAgents(ctx)) {
    if (spec.nodeId !== null) await assertHostMemoryFits(db, ctx, { typeId: spec.typeId, nodeId: spec.nodeId });
    return;
  }
  const needed = ctx.catalog.type(spec.typeId)?.memory ?? 0;
  const used = await memoryInUse(db, ctx, spec.nodeId);
  const total = ctx.config.computeMemoryMb;
  if (used + needed > total) {
    throw fail.badRequest(
      `Not enough memory for this node: it needs ${needed} MB and ${Math.max(0, total - used)} MB of the host's ${total} MB for nodes is free`,
      'type',
    );
  }
}

/**
 * With agents, a node migrates only to a region its host serves: its disks stay on that host (they
 * are not moved between hosts), so another region is a 400 on `region`.
 */
export async function assertHostServes(db: Kysely<Database>, ctx: Context, nodeId: number, region: string): Promise<void> {
  if (!onAgents(ctx)) return;
  const host = (await findNodePlacement(db, nodeId))?.host ?? null;
  const report = host === null ? undefined : (await listHosts(db)).find((h) => h.name === host);
  if (report && hostServes(report, region)) return;
  throw fail.badRequest(
    `This node's compute host ${host ?? '(none)'} does not serve region ${region}, and disks are not moved between hosts`,
    'region',
  );
}
