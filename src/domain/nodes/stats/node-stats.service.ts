import { setImmediate } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { fail } from '../../../errors.ts';
import type { AccountScope } from '../../account/principal.ts';
import { addressesOfNodes } from '../../networking/node-addresses.service.ts';
import { findNodesOfAccount, type NodeRow } from '../node.repository.ts';
import { nodeFor } from '../node-access.ts';
import { measuredSpans, measuredStatsOf, measuredTransfer, measuredWindow } from './measured-stats.ts';
import type { NodeStats, NodeTransfer, NodeTransferMonth } from './node-stats.schema.ts';
import { BUCKET_MS, GIB, type Series, type StatsProfile, seriesPoints, transferBytes } from './node-stats.ts';
import { statsShape } from './stats-shape.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The stats profiles of some nodes of one account, with one query for their addresses. */
async function profilesOf(
  db: Kysely<Database>,
  ctx: Context,
  accountId: number,
  nodes: readonly NodeRow[],
): Promise<StatsProfile[]> {
  const addresses = await addressesOfNodes(
    db,
    accountId,
    nodes.map((n) => n.id),
    'ipv4',
  );
  const withPrivate = new Set(addresses.filter((a) => a.public === 0).map((a) => a.node_id));
  return nodes.map((node) => {
    const type = ctx.catalog.type(node.type);
    return {
      nodeId: node.id,
      vcpus: type?.vcpus ?? 1,
      networkOutMbps: type?.network_out ?? 1000,
      transferGb: type?.transfer ?? 0,
      privateNetwork: withPrivate.has(node.id),
    };
  });
}

async function profileOf(db: Kysely<Database>, ctx: Context, node: NodeRow): Promise<StatsProfile> {
  const [profile] = await profilesOf(db, ctx, node.account_id, [node]);
  if (!profile) throw fail.internal();
  return profile;
}

function createdMs(node: NodeRow): number {
  return Date.parse(`${node.created}Z`);
}

/** A calendar month (UTC); one that has not begun is a 400: there is nothing to report yet. */
function monthRange(year: number, month: number, nowMs: number): { start: number; end: number } {
  const start = Date.UTC(year, month - 1, 1);
  if (start > nowMs)
    throw fail.badRequest(`${year}-${String(month).padStart(2, '0')} is in the future; ask for a past or the current month`);
  return { start, end: Date.UTC(year, month, 1) };
}

function stats(p: StatsProfile, title: string, fromMs: number, toMs: number, stepMs: number): NodeStats {
  return statsShape((s: Series) => seriesPoints(p, s, fromMs, toMs, stepMs), title);
}

/** The stats of the one node asked for. */
function the(stats: NodeStats[]): NodeStats {
  const [one] = stats;
  if (!one) throw fail.internal();
  return one;
}

const dayTitle = (node: NodeRow) => `${node.label} (node${node.id}) - day (5 min avg)`;
const monthTitle = (node: NodeRow) => `${node.label} (node${node.id}) - month (1 hour avg)`;

function dayStats(node: NodeRow, profile: StatsProfile, now: number): NodeStats {
  return stats(profile, dayTitle(node), Math.max(createdMs(node), now - DAY_MS), now, BUCKET_MS);
}

/** Nodes that really run: their past day as sampled (a day of the sampling grid, scaled by CUMULO_TIME_SCALE). */
function measuredDayStats(ctx: Context, nodes: readonly NodeRow[]): Promise<NodeStats[]> {
  const now = ctx.clock.nowMs();
  const { dayMs } = measuredSpans(ctx);
  return measuredStatsOf(ctx, nodes, (node) => ({
    window: measuredWindow(ctx, 'day', Math.max(createdMs(node), now - dayMs), now),
    title: dayTitle(node),
  }));
}

/** The past 24 hours in five-minute averages, none from before the node existed. */
export async function getNodeStats(ctx: Context, scope: AccountScope, nodeId: number): Promise<NodeStats> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  if (ctx.compute) return the(await measuredDayStats(ctx, [node]));
  return dayStats(node, await profileOf(ctx.db, ctx, node), ctx.clock.nowMs());
}

/** How many nodes' figures are worked out between two turns of the event loop. */
const NODES_A_TURN = 50;

/**
 * The past day of every node of the account, each as its own stats show it (what managed stats add
 * up). Working out a day takes about a millisecond a node, so a large account's nodes are taken a
 * few at a time, letting other requests in between.
 */
export async function accountDayStats(ctx: Context, accountId: number): Promise<NodeStats[]> {
  const nodes = await findNodesOfAccount(ctx.db, accountId);
  if (ctx.compute) return measuredDayStats(ctx, nodes);
  const profiles = await profilesOf(ctx.db, ctx, accountId, nodes);
  const now = ctx.clock.nowMs();
  const out: NodeStats[] = [];
  for (const [i, node] of nodes.entries()) {
    if (i > 0 && i % NODES_A_TURN === 0) await setImmediate();
    const profile = profiles[i];
    if (profile) out.push(dayStats(node, profile, now));
  }
  return out;
}

/** A past month in hourly averages, or for the current month the past 30 days; empty before the node existed. */
export async function getNodeStatsForMonth(
  ctx: Context,
  scope: AccountScope,
  nodeId: number,
  year: number,
  month: number,
): Promise<NodeStats> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  const now = ctx.clock.nowMs();
  const { start, end } = monthRange(year, month, now);
  if (ctx.compute) {
    // The current month is the past 30 days of the (scaled) sampling grid.
    const [from, to] = end > now ? [now - measuredSpans(ctx).monthMs, now] : [start, end];
    const window = measuredWindow(ctx, 'month', Math.max(createdMs(node), from), to);
    return the(await measuredStatsOf(ctx, [node], () => ({ window, title: monthTitle(node) })));
  }
  const [from, to] = end > now ? [now - 30 * DAY_MS, now] : [start, end];
  return stats(await profileOf(ctx.db, ctx, node), monthTitle(node), Math.max(createdMs(node), from), to, HOUR_MS);
}

/** Public bytes in and out of a calendar month: measured with a compute driver, else made up. */
async function monthTransfer(ctx: Context, node: NodeRow, start: number, end: number) {
  if (ctx.compute) {
    const month = new Date(start);
    return measuredTransfer(ctx, node.id, month.getUTCFullYear(), month.getUTCMonth() + 1);
  }
  const from = Math.max(start, createdMs(node));
  const to = Math.min(end, ctx.clock.nowMs());
  return from < to ? transferBytes(await profileOf(ctx.db, ctx, node), from, to) : { in: 0, out: 0 };
}

/**
 * This month's transfer: `used` is the public outbound traffic in bytes (inbound is not counted),
 * `quota` the GiB the node adds to the pool (its type's transfer, prorated from its creation), and
 * `billable` the GiB used beyond it.
 */
export async function getNodeTransfer(ctx: Context, scope: AccountScope, nodeId: number): Promise<NodeTransfer> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  const now = new Date(ctx.clock.nowMs());
  const { start, end } = monthRange(now.getUTCFullYear(), now.getUTCMonth() + 1, now.getTime());
  const used = (await monthTransfer(ctx, node, start, end)).out;
  const share = (end - Math.max(start, createdMs(node))) / (end - start);
  const quota = Math.ceil((ctx.catalog.type(node.type)?.transfer ?? 0) * Math.min(1, share));
  return { used, quota, billable: Math.max(0, Math.ceil(used / GIB - quota)) };
}

/** Public traffic of a past or the current month, in bytes; zero before the node existed. */
export async function getNodeTransferForMonth(
  ctx: Context,
  scope: AccountScope,
  nodeId: number,
  year: number,
  month: number,
): Promise<NodeTransferMonth> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  const { start, end } = monthRange(year, month, ctx.clock.nowMs());
  const bytes = await monthTransfer(ctx, node, start, end);
  return { bytes_in: bytes.in, bytes_out: bytes.out, bytes_total: bytes.in + bytes.out };
}
