import type { Context } from '../../../context.ts';
import type { NodeRow } from '../node.repository.ts';
import { findNodeSamples, findNodeTransferMonth } from './node-sample.repository.ts';
import { sampleGrid } from './node-sampler.ts';
import type { NodeStats } from './node-stats.schema.ts';
import { measuredPoints, type Sample, type SeriesWindow } from './sample-rates.ts';
import { statsShape } from './stats-shape.ts';

/**
 * Stats of nodes that really run (a compute driver): their series from the samples the sampler
 * stored (node-sampler.ts), their transfer from its monthly totals. A node not sampled yet has
 * empty series and no transfer.
 */

export type Span = 'day' | 'month';

/** The view's window on the sampling grid: a day in buckets, or a month in hours (both scaled by CUMULO_TIME_SCALE). */
export function measuredWindow(ctx: Context, span: Span, fromMs: number, toMs: number): SeriesWindow {
  const grid = sampleGrid(ctx.timing.scale);
  return { fromMs, toMs, bucketMs: grid.bucketMs, stepMs: span === 'day' ? grid.bucketMs : grid.hourMs };
}

/** The spans of a day and of 30 days on the grid. */
export function measuredSpans(ctx: Context): { dayMs: number; monthMs: number } {
  const grid = sampleGrid(ctx.timing.scale);
  return { dayMs: grid.dayMs, monthMs: 30 * grid.dayMs };
}

/** Each node's stats over its window (`windowOf`), its samples read in one query. */
export async function measuredStatsOf(
  ctx: Context,
  nodes: readonly NodeRow[],
  windowOf: (node: NodeRow) => { window: SeriesWindow; title: string },
): Promise<NodeStats[]> {
  const windows = nodes.map(windowOf);
  if (windows.length === 0) return [];
  const after = Math.min(...windows.map((w) => w.window.fromMs - w.window.bucketMs));
  const to = Math.max(...windows.map((w) => w.window.toMs));
  const samples = await findNodeSamples(
    ctx.db,
    nodes.map((n) => n.id),
    after,
    to,
  );
  const byNode = new Map<number, Sample[]>();
  for (const sample of samples) {
    const own = byNode.get(sample.node_id);
    if (own) own.push(sample);
    else byNode.set(sample.node_id, [sample]);
  }
  return nodes.map((node, i) => {
    const { window, title } = windows[i] as (typeof windows)[number];
    const own = byNode.get(node.id) ?? [];
    return statsShape((series) => measuredPoints(own, series, window), title);
  });
}

/** The node's public bytes in a calendar month (UTC) as the sampler added them up. */
export async function measuredTransfer(ctx: Context, nodeId: number, year: number, month: number) {
  const row = await findNodeTransferMonth(ctx.db, nodeId, year, month);
  return { in: row?.bytes_in ?? 0, out: row?.bytes_out ?? 0 };
}
