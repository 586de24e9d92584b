import type { Context } from '../context.ts';
import { inTransaction } from '../db/transaction.ts';
import { fail } from '../errors.ts';
import { transitionMs } from '../jobs/operation.ts';
import { findHeldJobs, releaseJobs } from '../jobs/queue.ts';
import { TRANSITION_KINDS, TRANSITION_SECONDS, type TransitionKind } from '../jobs/transitions.ts';
import { TRANSITION_PREFIX } from './operator-state.ts';
import { deleteSetting, putSetting } from './settings.repository.ts';

export interface TransitionView {
  kind: TransitionKind;
  /** How long the transition takes without a setting, before CUMULO_TIME_SCALE. */
  default_seconds: number;
  mode: 'default' | 'seconds' | 'manual';
  /** How long it takes on the service clock now; null when manual. */
  seconds: number | null;
  /** Jobs waiting for an advance of this kind. */
  held: number[];
}

/** `{"seconds": n}`, `{"mode": "manual"}` or `{"mode": "default"}`. */
export type TransitionChange = { seconds: number } | { mode: 'manual' | 'default' };

export interface Released {
  released: number[];
  /** Jobs run before answering (the released ones and whatever else was due). */
  jobs_run: number;
}

function checkKind(kind: string): TransitionKind {
  if (!(TRANSITION_KINDS as string[]).includes(kind)) {
    throw fail.notFound(`No transition kind ${kind}; the kinds are ${TRANSITION_KINDS.join(', ')}`);
  }
  return kind as TransitionKind;
}

export async function listTransitions(ctx: Context): Promise<TransitionView[]> {
  await ctx.operator.reload();
  const held = await findHeldJobs(ctx.db);
  return TRANSITION_KINDS.map((kind) => {
    const setting = ctx.operator.transition(kind);
    const ms = transitionMs(ctx, kind);
    return {
      kind,
      default_seconds: TRANSITION_SECONDS[kind],
      mode: setting ? setting.mode : 'default',
      seconds: ms === 'manual' ? null : ms / 1000,
      held: held.filter((j) => j.transition === kind).map((j) => j.id),
    };
  });
}

/**
 * Sets how long one kind of transition takes (`all` for every kind): explicit seconds, manual, or back
 * to the default. Leaving manual releases the jobs held for the kind, which then run.
 */
export async function setTransition(ctx: Context, kindOrAll: string, change: TransitionChange): Promise<TransitionView[]> {
  const kinds = kindOrAll === 'all' ? TRANSITION_KINDS : [checkKind(kindOrAll)];
  const mode = 'seconds' in change ? 'seconds' : change.mode;
  await inTransaction(ctx.db, async (trx) => {
    for (const kind of kinds) {
      const key = `${TRANSITION_PREFIX}${kind}`;
      if (mode === 'default') await deleteSetting(trx, key);
      else await putSetting(trx, key, 'seconds' in change ? { mode, seconds: change.seconds } : { mode });
    }
  });
  await ctx.operator.reload();
  if (mode !== 'manual') await releaseAndRun(ctx, kinds);
  const all = await listTransitions(ctx);
  return all.filter((t) => kinds.includes(t.kind));
}

async function releaseAndRun(ctx: Context, kinds: readonly TransitionKind[]): Promise<Released> {
  const released: number[] = [];
  for (const kind of kinds) released.push(...(await releaseJobs(ctx.db, ctx.clock, { transition: kind })));
  const jobsRun = released.length ? await ctx.runDueJobs() : 0;
  return { released, jobs_run: jobsRun };
}

/** Finishes every operation of the kind that waits on a manual transition. */
export async function advanceTransition(ctx: Context, kind: string): Promise<Released> {
  return releaseAndRun(ctx, [checkKind(kind)]);
}

/** Makes one job (held, or queued for later) due now and runs what is due. */
export async function advanceJob(ctx: Context, id: number): Promise<Released> {
  const released = await releaseJobs(ctx.db, ctx.clock, { id });
  if (!released.length) {
    const job = await ctx.db.selectFrom('jobs').select(['status']).where('id', '=', id).executeTakeFirst();
    if (!job) throw fail.notFound(`No job with id ${id}`);
    throw fail.badRequest(
      `Job ${id} is ${job.status === 'failed' ? 'failed' : 'running'}; only a held or waiting job can be advanced`,
    );
  }
  return { released, jobs_run: await ctx.runDueJobs() };
}

/** What a request body or command line asks for: seconds, or a mode. */
export function transitionChange(input: { seconds?: number | undefined; mode?: string | undefined }): TransitionChange {
  if (input.mode === 'manual' || input.mode === 'default') {
    if (input.seconds !== undefined) throw fail.badRequest(`A ${input.mode} transition takes no seconds`, 'seconds');
    return { mode: input.mode };
  }
  if (input.seconds === undefined) {
    throw fail.badRequest('Send "seconds" (the duration on the service clock) or "mode" ("manual" or "default")', 'seconds');
  }
  return { seconds: input.seconds };
}
