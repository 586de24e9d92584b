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

/** A clock that stands still at `startMs` unless advanced: the base of the logical clock of seeded runs. */
export class FixedClock implements Clock {
  #nowMs: number;
  constructor(startMs: number) {
    this.#nowMs = startMs;
  }
  nowMs(): number {
    return this.#nowMs;
  }
  advance(ms: number): void {
    this.#nowMs += ms;
  }
}

/**
 * The clock services see: a base clock plus the offset the operator has moved the service clock by
 * (`cumulo admin clock advance`), which lives in the database so that every process and a restart
 * agree on it. `advance` moves only this process's base clock (tests).
 */
export class ServiceClock implements Clock {
  readonly base: Clock;
  #offsetMs = 0;
  constructor(base: Clock) {
    this.base = base;
  }
  nowMs(): number {
    return this.base.nowMs() + this.#offsetMs;
  }
  advance(ms: number): void {
    this.base.advance(ms);
  }
  get offsetMs(): number {
    return this.#offsetMs;
  }
  setOffset(ms: number): void {
    this.#offsetMs = ms;
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
