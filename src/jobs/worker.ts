import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '../context.ts';
import { claimNextJob, type JobRow } from '../db/job-claim.ts';
import { inTransaction } from '../db/transaction.ts';
import { randomHex, systemRandom } from '../random.ts';
import type { JobHandler } from './handler.ts';

export interface WorkerOptions {
  pollMs: number;
  /** Wall-clock lease; a worker that dies holding a job frees it after this long. A live worker renews it. */
  leaseMs?: number;
  /** How many jobs of `parallel` kinds run at once, beside the one-at-a-time jobs. */
  parallel?: number;
  /**
   * How many of those may share a concurrency key (a job's `concurrency_key`, e.g. one tenant's):
   * the rest of the slots stay free for other keys. A quarter of `parallel` (at least 1) unless given.
   */
  parallelPerKey?: number;
  /** An agent's worker: claims only the jobs of this compute host. Otherwise only jobs of no host. */
  host?: string | null;
}

/** A loop that has not looked for jobs for this many poll intervals (and at least STALL_MIN_MS) is stuck. */
const STALL_POLLS = 10;
const STALL_MIN_MS = 3_000;

class LeaseLost extends Error {}

const MAX_BACKOFF_MS = 5 * 60_000;

const WAKE = new Error('worker woken');

/**
 * Runs due jobs until stopped: one at a time, except the kinds marked `parallel`, of which up to
 * `parallel` run beside them, and at most `parallelPerKey` of one concurrency key. Any number of
 * workers may share a database; each counts only the jobs it runs itself (a job is run by one worker
 * only: the claim takes its lease), so a key holds at most `parallelPerKey` slots of every worker.
 */
export class Worker {
  #ctx: Context;
  #handlers: Map<string, JobHandler>;
  #parallelKinds: string[];
  #options: Required<WorkerOptions>;
  #running = false;
  #loop: Promise<void> | null = null;
  #inFlight = new Set<Promise<void>>();
  /** Parallel jobs running now, by concurrency key. */
  #runningByKey = new Map<string, number>();
  #wake: AbortController = new AbortController();
  #id: string;
  /** When the loop last looked for a job (monotonic milliseconds). */
  #lastLook = 0;
  processed = 0;

  constructor(ctx: Context, handlers: readonly JobHandler[], options: WorkerOptions) {
    this.#ctx = ctx;
    this.#handlers = new Map(handlers.map((h) => [h.kind, h]));
    this.#parallelKinds = handlers.filter((h) => h.parallel).map((h) => h.kind);
    const parallel = options.parallel ?? 8;
    // Renewed every third of it: a job of a worker that died (a node's boot) is taken over within seconds.
    this.#options = {
      leaseMs: 10_000,
      parallel,
      parallelPerKey: Math.max(1, Math.floor(parallel / 4)),
      host: null,
      ...options,
    };
    // Lease tokens fence dead workers; they are never shown, so they stay out of a seeded stream.
    this.#id = randomHex(systemRandom, 6);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /**
   * Whether the loop runs: started, not stopped, and it has looked for a job within the last few poll
   * intervals (a loop held by a job that never ends has not).
   */
  get alive(): boolean {
    const stallMs = Math.max(STALL_POLLS * this.#options.pollMs, STALL_MIN_MS);
    return this.#running && performance.now() - this.#lastLook <= stallMs;
  }

  wake(): void {
    // Called on every enqueue: abort once, with a reason made once (a default reason is a new DOMException each time).
    if (!this.#wake.signal.aborted) this.#wake.abort(WAKE);
  }

  /** Stops claiming; resolves once the jobs in progress have finished. */
  async stop(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
    this.#loop = null;
    await Promise.all(this.#inFlight);
  }

  /** Runs every job due now, one at a time, then returns how many ran. */
  async drain(): Promise<number> {
    let n = 0;
    while (await this.runOne()) n += 1;
    return n;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      this.#lastLook = performance.now();
      let claimed = false;
      try {
        claimed = await this.#claimAndStart();
      } catch (err) {
        this.#ctx.log.error({ err }, 'worker: claiming a job failed');
      }
      if (!claimed && this.#running) {
        this.#wake = new AbortController();
        await sleep(this.#options.pollMs, undefined, { signal: this.#wake.signal }).catch(() => {});
      }
    }
  }

  /** Claims one due job: a parallel one is started and left running, any other is awaited. */
  async #claimAndStart(): Promise<boolean> {
    const full = this.#inFlight.size >= this.#options.parallel;
    const claim = await this.#claim(full ? this.#parallelKinds : [], this.#keysAtLimit());
    if (!claim) return false;
    if (!this.#handlers.get(claim.job.kind)?.parallel) {
      await this.#execute(claim.job, claim.token);
      return true;
    }
    const key = claim.job.concurrency_key;
    if (key !== null) this.#runningByKey.set(key, (this.#runningByKey.get(key) ?? 0) + 1);
    const running: Promise<void> = this.#execute(claim.job, claim.token)
      .catch((err: unknown) => this.#ctx.log.error({ err, jobId: claim.job.id }, 'worker: job crashed'))
      .finally(() => {
        this.#inFlight.delete(running);
        if (key !== null) {
          const left = (this.#runningByKey.get(key) ?? 1) - 1;
          if (left > 0) this.#runningByKey.set(key, left);
          else this.#runningByKey.delete(key);
        }
        // A freed slot may let a waiting parallel job be claimed.
        this.wake();
      });
    this.#inFlight.add(running);
    return true;
  }

  /** The concurrency keys of which as many parallel jobs run as may. */
  #keysAtLimit(): string[] {
    const limit = this.#options.parallelPerKey;
    return [...this.#runningByKey].filter(([, n]) => n >= limit).map(([key]) => key);
  }

  /** Claims and runs one due job, whatever its kind; false when none was due. */
  async runOne(): Promise<boolean> {
    const claim = await this.#claim([]);
    if (!claim) return false;
    await this.#execute(claim.job, claim.token);
    return true;
  }

  async #claim(skipKinds: readonly string[], skipKeys: readonly string[] = []): Promise<{ job: JobRow; token: string } | null> {
    const ctx = this.#ctx;
    const token = `${this.#id}-${randomHex(systemRandom, 6)}`;
    await ctx.operator.fresh();
    // Leases are measured on the wall clock: they guard against dead processes, not simulated time.
    const wallNow = Date.now();
    const job = await claimNextJob(ctx.db, ctx.dbKind, {
      dueBy: ctx.clock.nowMs(),
      now: wallNow,
      leaseUntil: wallNow + this.#options.leaseMs,
      leaseToken: token,
      skipKinds,
      skipKeys,
      host: this.#options.host,
    });
    return job ? { job, token } : null;
  }

  /** Keeps the lease of a job that runs long (a probe waiting out its timeout) from running out. */
  #renewLease(job: JobRow, token: string): () => void {
    const { leaseMs } = this.#options;
    const timer = setInterval(() => {
      this.#ctx.db
        .updateTable('jobs')
        .set({ lease_until: Date.now() + leaseMs })
        .where('id', '=', job.id)
        .where('lease_token', '=', token)
        .execute()
        .catch((err: unknown) => this.#ctx.log.warn({ err, jobId: job.id }, 'worker: renewing a lease failed'));
    }, leaseMs / 3);
    timer.unref();
    return () => clearInterval(timer);
  }

  async #execute(job: JobRow, token: string): Promise<void> {
    const ctx = this.#ctx;
    const handler = this.#handlers.get(job.kind);
    const payload = JSON.parse(job.payload) as Record<string, unknown>;
    const stopRenewing = this.#renewLease(job, token);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      const prepared = handler.prepare ? await handler.prepare({ job, payload, ctx }) : undefined;
      await inTransaction(ctx.db, async (trx) => {
        // What a job generates depends on the job alone, whichever process or moment runs it (or
        // how often its transaction had to run again).
        ctx.random.reposition(`job:${job.id}:${job.attempts}`);
        await handler.run({ trx, job, payload, ctx, prepared });
        const done = await trx.deleteFrom('jobs').where('id', '=', job.id).where('lease_token', '=', token).executeTakeFirst();
        if (Number(done.numDeletedRows) !== 1) throw new LeaseLost();
      });
    } catch (err) {
      if (err instanceof LeaseLost) {
        ctx.log.warn(
          { jobId: job.id, kind: job.kind },
          'worker: lease ran out before the job finished; its effects were rolled back',
        );
        return;
      }
      await this.#failed(job, token, handler, payload, err);
    } finally {
      stopRenewing();
      this.processed += 1;
    }
  }

  async #failed(job: JobRow, token: string, handler: JobHandler | undefined, payload: Record<string, unknown>, err: unknown) {
    const ctx = this.#ctx;
    const giveUp = job.attempts >= job.max_attempts;
    const message = err instanceof Error ? err.message : String(err);
    ctx.log.error({ err, jobId: job.id, kind: job.kind, attempt: job.attempts, giveUp }, 'worker: job failed');
    const backoff = Math.min(1000 * 2 ** (job.attempts - 1), MAX_BACKOFF_MS);
    await inTransaction(ctx.db, async (trx) => {
      await trx
        .updateTable('jobs')
        .set({
          status: giveUp ? 'failed' : 'queued',
          run_at: giveUp ? job.run_at : ctx.timing.after(backoff),
          lease_token: null,
          lease_until: null,
          last_error: message.slice(0, 2000),
          ...(giveUp ? { dedupe_key: null } : {}),
        })
        .where('id', '=', job.id)
        .where('lease_token', '=', token)
        .execute();
      if (giveUp && handler?.onGiveUp) await handler.onGiveUp({ trx, job, payload, ctx }, err);
    });
  }
}
