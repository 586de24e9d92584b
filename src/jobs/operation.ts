import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/database.ts';
import type { JobContext, JobHandler, PrepareContext } from './handler.ts';
import { enqueueJob } from './queue.ts';
import { defaultTransitionMs, type TransitionKind } from './transitions.ts';
import { WorkProgress } from './work-progress.ts';

/**
 * An operation is work that takes time: it starts, runs, then finishes. Its event moves scheduled ->
 * started -> finished (or failed) with percent_complete as it goes. Simulated, it runs for its
 * transition's duration (a manual transition's finish job is held until an operator advances it:
 * src/admin/transitions.service.ts). With real work (a compute driver), it runs as long as the work.
 */
export interface OperationHandler {
  /** Job kind, e.g. `node.boot`. */
  kind: string;
  transition: TransitionKind;
  /**
   * Whether the work may start now, for an operation that waits on another (a capture of the disk a
   * node create is still writing); in the start job's transaction, before `start`. Without it, ready.
   */
  ready?(job: JobContext): Promise<Readiness>;
  /** Runs when the work starts (in the start job's transaction). */
  start?(job: JobContext): Promise<void>;
  /**
   * The real work (machines, disks), done outside any transaction before the finish phase when
   * operations do real work. It must be safe to do again: after a crash the finish job runs again.
   */
  work?(job: WorkContext): Promise<void>;
  /** Runs when the work is done (in the finish job's transaction). */
  finish(job: JobContext): Promise<void>;
  /** Runs if the operation fails for good, to put the resource back in a sane state. */
  fail?(job: JobContext, error: unknown): Promise<void>;
}

/**
 * `ready`: the operation starts. `wait`: its start is asked again a little later (READY_POLL_MS), its
 * event still scheduled. `refused`: it never will, and fails without starting: `fail` runs and the
 * event fails with the reason as its message.
 */
export type Readiness = 'ready' | 'wait' | { refused: string };

/** How long a waiting operation waits before its start asks again (service clock, not scaled: real work takes real time). */
export const READY_POLL_MS = 1000;

/** What an operation's real work gets: its job, and where it says how far along it is. */
export interface WorkContext extends PrepareContext {
  /** How far the work is, from 0 to 1: the event's percent_complete follows (written at most once a second). */
  progress(fraction: number): void;
}

export interface OperationEvent {
  id: number;
  created: string;
  /** MB of data the operation moves (a clone's disks): the event's rate follows from it. */
  dataMb?: number;
}

/** How a running operation goes on, as its event shows it: time left and rate, each null when not known. */
export interface OperationPace {
  remainingMs: number | null;
  mbPerSecond: number | null;
}

export interface OperationSpec {
  kind: string;
  accountId: number;
  /** The event this operation reports progress on. */
  event: OperationEvent | null;
  payload: Record<string, unknown>;
  /** Service-clock ms when the work starts; now when absent. */
  startAt?: number;
}

type Phase = 'start' | 'progress' | 'finish';

/** Moves an operation's event on (its status, percent_complete), in the phase's transaction. */
export type ReportProgress = (
  db: Kysely<Database>,
  ctx: Context,
  event: OperationEvent & { accountId: number },
  status: 'started' | 'finished' | 'failed',
  percentComplete: number,
  pace?: OperationPace | null,
  /** Why it failed, for an operation refused before it started. */
  message?: string,
) => Promise<void>;

export interface OperationJobOptions {
  /** Writes the event's progress (the events group's, given by the assembly: src/job-handlers.ts). */
  progress: ReportProgress;
  /** Locks what the operations change before a phase reads it, as the API's writes do. */
  hold?: (job: JobContext) => Promise<void>;
  /** Whether operations that have real work do it and end with it (a compute driver is set), rather than on a timer. */
  realWork?: boolean;
  /**
   * With real work: the compute host whose agent does it (the operation's node's), or null for this
   * process. The start phase asks it and queues the phase that does the work for that host alone.
   */
  hostOf?: (job: JobContext) => Promise<string | null>;
}

/** Schedules an operation; call with the transaction of the change that requests it. */
export async function scheduleOperation(db: Kysely<Database>, ctx: Context, spec: OperationSpec): Promise<void> {
  await enqueueJob(db, ctx.clock, {
    kind: spec.kind,
    accountId: spec.accountId,
    ...(spec.startAt !== undefined ? { runAt: spec.startAt } : {}),
    payload: { ...spec.payload, phase: 'start', event: spec.event },
  });
  ctx.wakeWorker();
}

/**
 * How long a transition takes on the service clock: the operator's seconds when set (taken as
 * they are), the default times CUMULO_TIME_SCALE otherwise; `manual` when its finish waits for an
 * operator's advance.
 */
export function transitionMs(ctx: Context, kind: TransitionKind): number | 'manual' {
  const setting = ctx.operator.transition(kind);
  if (setting?.mode === 'manual') return 'manual';
  if (setting?.mode === 'seconds') return Math.round(setting.seconds * 1000);
  return Math.round(defaultTransitionMs(kind) * ctx.timing.scale);
}

/** When a simulated operation (one on a timer) ends, on the service clock, and how long it runs. */
interface SimulatedTiming {
  finishAt: number;
  durationMs: number;
}

/** A simulated operation's pace: what is left of its timer, and its data spread evenly over it. */
function simulatedPace(event: OperationEvent, timing: SimulatedTiming, nowMs: number): OperationPace {
  const { dataMb } = event;
  return {
    remainingMs: Math.max(0, timing.finishAt - nowMs),
    mbPerSecond: dataMb !== undefined && timing.durationMs > 0 ? dataMb / (timing.durationMs / 1000) : null,
  };
}

/** Turns operation handlers into the job handlers that run their phases. */
export function operationJobs(handlers: readonly OperationHandler[], options: OperationJobOptions): JobHandler[] {
  const { progress, hold } = options;
  return handlers.map((op) => {
    const work = options.realWork ? op.work : undefined;
    return {
      kind: op.kind,
      // Real work waits on machines for seconds or minutes: it must not hold up the other jobs.
      parallel: work !== undefined,
      ...(work && {
        async prepare(pc: PrepareContext) {
          if (pc.payload.phase !== 'finish') return;
          const event = pc.payload.event as OperationEvent | null;
          const reporter = new WorkProgress(pc, event && { accountId: pc.job.account_id ?? 0, ...event }, progress);
          try {
            await work({ ...pc, progress: (fraction) => reporter.report(fraction) });
          } finally {
            await reporter.settled();
          }
        },
      }),
      async run(jc) {
        await hold?.(jc);
        const { trx, ctx, payload, job } = jc;
        const phase = payload.phase as Phase;
        const event = payload.event as OperationEvent | null;
        const accountId = job.account_id ?? 0;
        const host = work && phase === 'start' && options.hostOf ? await options.hostOf(jc) : null;
        const next = (p: Phase, at: number, heldFor?: string, timing?: SimulatedTiming) =>
          enqueueJob(trx, ctx.clock, {
            kind: op.kind,
            accountId,
            runAt: at,
            payload: { ...payload, phase: p, ...timing },
            ...(heldFor ? { heldFor } : {}),
            ...(host !== null ? { host } : {}),
            // Work that failed three times (a guest that never came up) fails the operation, not a tenth try.
            ...(work && p === 'finish' ? { maxAttempts: 3 } : {}),
          });
        if (phase === 'start') {
          const readiness = op.ready ? await op.ready(jc) : 'ready';
          if (readiness === 'wait') {
            await enqueueJob(trx, ctx.clock, { kind: op.kind, accountId, runAt: ctx.clock.nowMs() + READY_POLL_MS, payload });
            return;
          }
          if (readiness !== 'ready') {
            ctx.log.info({ kind: op.kind, jobId: job.id, reason: readiness.refused }, 'operation refused before it started');
            await op.fail?.(jc, new Error(readiness.refused));
            if (event) await progress(trx, ctx, { accountId, ...event }, 'failed', 0, null, readiness.refused);
            return;
          }
          await op.start?.(jc);
          const now = ctx.clock.nowMs();
          const duration = work ? 0 : transitionMs(ctx, op.transition);
          const timing = typeof duration === 'number' && !work ? { finishAt: now + duration, durationMs: duration } : undefined;
          if (event) await progress(trx, ctx, { accountId, ...event }, 'started', 0, timing && simulatedPace(event, timing, now));
          if (duration === 'manual') {
            await next('finish', now, op.transition);
          } else {
            if (duration >= 2) await next('progress', now + Math.floor(duration / 2), undefined, timing);
            await next('finish', now + duration);
          }
        } else if (phase === 'progress') {
          const { finishAt, durationMs } = payload as Partial<SimulatedTiming>;
          if (event) {
            const timed = finishAt !== undefined && durationMs !== undefined;
            const pace = timed ? simulatedPace(event, { finishAt, durationMs }, ctx.clock.nowMs()) : null;
            await progress(trx, ctx, { accountId, ...event }, 'started', 50, pace);
          }
        } else {
          await op.finish(jc);
          if (event) await progress(trx, ctx, { accountId, ...event }, 'finished', 100);
        }
      },
      async onGiveUp(jc, error) {
        await hold?.(jc);
        const event = jc.payload.event as OperationEvent | null;
        await op.fail?.(jc, error);
        if (event) await progress(jc.trx, jc.ctx, { accountId: jc.job.account_id ?? 0, ...event }, 'failed', 0);
      },
    };
  });
}
