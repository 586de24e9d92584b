import type { Context } from '../context.ts';
import { toTimestamp } from '../time/timestamp.ts';
import type { ClockView } from './clock-view.ts';

export function clockView(ctx: Context): ClockView {
  return {
    now: toTimestamp(ctx.clock.nowMs()),
    offset_seconds: ctx.operator.clockOffsetMs / 1000,
    logical: ctx.config.seed !== undefined,
  };
}

/**
 * Moves the service clock forward for every process (the offset lives in the database) and runs
 * what became due: upload expiries, scheduled backups, transitions under way.
 */
export async function advanceClock(ctx: Context, seconds: number): Promise<ClockView & { jobs_run: number }> {
  await ctx.operator.addClockOffset(Math.round(seconds * 1000));
  const jobsRun = await ctx.runDueJobs();
  return { ...clockView(ctx), jobs_run: jobsRun };
}
