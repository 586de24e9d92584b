import type { Context } from '../../../context.ts';
import type { NodeStats } from '../../nodes/stats/node-stats.schema.ts';
import { accountDayStats } from '../../nodes/stats/node-stats.service.ts';
import type { ManagedStats, ManagedStatsPoint } from './managed-stats.schema.ts';

/*
 * Managed covers the whole account (every node has managed settings; nothing opts a node in or
 * out), so the managed nodes are all the account's nodes. Each managed series is, at every
 * five-minute point of the past day, the sum of the nodes' own stats there (GET
 * /node/instances/{id}/stats): cpu of `cpu`, disk of `io.io`, swap of `io.swap`, net_in and net_out
 * of the public and private IPv4 and IPv6 traffic in that direction.
 */

type Parts = (stats: NodeStats['data']) => NodeStats['data']['cpu'][];

const SERIES: Record<keyof ManagedStats['data'], Parts> = {
  cpu: (s) => [s.cpu],
  disk: (s) => [s.io.io],
  swap: (s) => [s.io.swap],
  net_in: (s) => [s.netv4.in, s.netv4.private_in, s.netv6.in, s.netv6.private_in],
  net_out: (s) => [s.netv4.out, s.netv4.private_out, s.netv6.out, s.netv6.private_out],
};

/** Node stats' points carry two decimals; so do their sums. */
function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function sumOf(nodes: readonly NodeStats[], parts: Parts): ManagedStatsPoint[] {
  const sums = new Map<number, number>();
  for (const stats of nodes) {
    for (const series of parts(stats.data)) {
      // Node stats' points are [ms, value] pairs.
      for (const [x, y] of series as [number, number][]) sums.set(x, (sums.get(x) ?? 0) + y);
    }
  }
  return [...sums].sort(([a], [b]) => a - b).map(([x, y]) => ({ x, y: round2(y) }));
}

export async function getManagedStats(ctx: Context, accountId: number): Promise<ManagedStats> {
  const nodes = await accountDayStats(ctx, accountId);
  return {
    data: {
      cpu: sumOf(nodes, SERIES.cpu),
      disk: sumOf(nodes, SERIES.disk),
      swap: sumOf(nodes, SERIES.swap),
      net_in: sumOf(nodes, SERIES.net_in),
      net_out: sumOf(nodes, SERIES.net_out),
    },
  };
}
