import type { PrepareContext } from './handler.ts';
import type { OperationEvent, OperationPace, ReportProgress } from './operation.ts';

/** Progress is written at most this often (wall clock): a copy reports many times a second. */
const WRITE_EVERY_MS = 1000;

/**
 * An operation's real work reporting how far it is: the event's percent_complete follows, between 1
 * and 99 (100 is the finish phase's), only ever up, one write at a time, with the time left and the
 * rate as the pace so far gives them. The work waits for the last write (`settled`) before the
 * finish phase runs, so a late write never lands after it.
 */
export class WorkProgress {
  #job: PrepareContext;
  #event: (OperationEvent & { accountId: number }) | null;
  #write: ReportProgress;
  #written = 0;
  #wanted = 0;
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  #writing: Promise<void> | null = null;
  #later: NodeJS.Timeout | undefined;
  readonly #startedAt = performance.now();

  constructor(job: PrepareContext, event: (OperationEvent & { accountId: number }) | null, write: ReportProgress) {
    this.#job = job;
    this.#event = event;
    this.#write = write;
  }

  report(fraction: number): void {
    if (this.#event === null || !Number.isFinite(fraction)) return;
    this.#wanted = Math.max(this.#wanted, Math.min(99, Math.max(1, Math.floor(fraction * 100))));
    if (this.#later !== undefined) return;
    const wait = this.#lastWriteAt + WRITE_EVERY_MS - performance.now();
    if (this.#writing === null && wait <= 0) this.#writeWanted();
    else this.#later = setTimeout(() => this.#writeLater(), Math.max(wait, 0));
  }

  /** A write held back by the rate, or by the write under way, goes once both allow. */
  async #writeLater(): Promise<void> {
    await this.#writing;
    this.#later = undefined;
    this.#writeWanted();
  }

  #writeWanted(): void {
    const event = this.#event;
    const percent = this.#wanted;
    if (event === null || percent <= this.#written) return;
    const { ctx } = this.#job;
    this.#lastWriteAt = performance.now();
    this.#writing = this.#write(ctx.db, ctx, event, 'started', percent, this.#pace(event, percent / 100))
      .then(() => {
        this.#written = percent;
      })
      .catch((err: unknown) => ctx.log.warn({ err, eventId: event.id }, 'operation: writing its progress failed'))
      .finally(() => {
        this.#writing = null;
      });
  }

  /** At this pace so far, what is left and how fast the data moves (the event's, when it says how much). */
  #pace(event: OperationEvent, fraction: number): OperationPace {
    const elapsedMs = performance.now() - this.#startedAt;
    if (elapsedMs <= 0) return { remainingMs: null, mbPerSecond: null };
    return {
      remainingMs: (elapsedMs * (1 - fraction)) / fraction,
      mbPerSecond: event.dataMb !== undefined ? (event.dataMb * fraction) / (elapsedMs / 1000) : null,
    };
  }

  /** Waits for the write under way; what was reported since is left to the finish phase. */
  async settled(): Promise<void> {
    clearTimeout(this.#later);
    this.#later = undefined;
    this.#event = null;
    await this.#writing;
  }
}

/**
 * A progress split into consecutive steps weighted by `weights` (a disk's size, say), the steps
 * spanning `span` of the whole: step i at fraction f reports where that leaves the whole.
 */
export function progressSteps(
  progress: (fraction: number) => void,
  weights: readonly number[],
  span: readonly [number, number] = [0, 1],
): ((fraction: number) => void)[] {
  const total = weights.reduce((sum, w) => sum + w, 0);
  let before = 0;
  return weights.map((weight) => {
    const start = before;
    before += weight;
    return (fraction: number) => {
      if (total <= 0) return;
      progress(span[0] + ((span[1] - span[0]) * (start + weight * Math.min(1, Math.max(0, fraction)))) / total);
    };
  });
}
