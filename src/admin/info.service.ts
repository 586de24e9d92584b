import type { Context } from '../context.ts';
import { countRows } from '../db/table-data.ts';
import { describeTables } from '../db/tables.ts';
import { countJobsByStatus } from '../jobs/queue.ts';
import { VERSION } from '../version.ts';
import { clockView } from './clock.service.ts';
import type { ClockView } from './clock-view.ts';
import { type FaultsView, listFaults } from './faults.service.ts';
import { listTransitions, type TransitionView } from './transitions.service.ts';

export interface InfoView {
  version: string;
  database: { kind: string; location: string };
  /** Seconds this server process has run; null from the CLI (no server answers it). */
  uptime_seconds: number | null;
  seed: number | null;
  clock: ClockView;
  /** Rows per table. */
  counts: Record<string, number>;
  jobs: { queued: number; held: number; failed: number };
  faults: FaultsView;
  /** Transitions with a setting, or with jobs held. */
  transitions: TransitionView[];
}

export async function getInfo(ctx: Context, uptimeSeconds: number | null): Promise<InfoView> {
  const tables = await describeTables(ctx.db, ctx.dbKind);
  const counts: Record<string, number> = {};
  for (const t of tables) counts[t.name] = await countRows(ctx.db, t.name);
  const jobs = await countJobsByStatus(ctx.db);
  const faults = await listFaults(ctx);
  const transitions = (await listTransitions(ctx)).filter((t) => t.mode !== 'default' || t.held.length > 0);
  return {
    version: VERSION,
    database: { kind: ctx.dbKind, location: ctx.dbLocation },
    uptime_seconds: uptimeSeconds === null ? null : Math.round(uptimeSeconds),
    seed: ctx.config.seed ?? null,
    clock: clockView(ctx),
    counts,
    jobs: { queued: jobs.queued ?? 0, held: jobs.held ?? 0, failed: jobs.failed ?? 0 },
    faults,
    transitions,
  };
}
