/** The service clock. Every timestamp and every due time is read from it, never from Date directly. */
export interface Clock {
  nowMs(): number;
  /** Moves service time forward; the worker then runs whatever became due. */
  advance(ms: number): void;
}

export class SystemClock implements Clock {
  #offsetMs = 0;
  nowMs(): number {
    return Date.now() + this.#offsetMs;
  }
  advance(ms: number): void {
    this.#offsetMs += ms;
  }
}

/** Simulated durations are multiplied by the time scale; `0.001` makes a day last 86.4 s. */
export class Timing {
  readonly clock: Clock;
  readonly scale: number;
  constructor(clock: Clock, scale: number) {
    this.clock = clock;
    this.scale = scale;
  }
  /** Service-clock time `ms` simulated milliseconds from now. */
  after(ms: number): number {
    return this.clock.nowMs() + Math.round(ms * this.scale);
  }
}
