import type { Db } from '../db/database.ts';
import type { Catalog } from '../domain/catalog/catalog.ts';
import type { TransitionKind } from '../jobs/transitions.ts';
import type { ServiceClock } from '../time/clock.ts';
import { type FaultMatcher, parseFaultMatch, type RequestFault } from './request-faults.ts';
import { addClockOffset, CLOCK_OFFSET_KEY, readSettings } from './settings.repository.ts';

export type TransitionSetting = { mode: 'seconds'; seconds: number } | { mode: 'manual' };
export type RegionStatus = 'ok' | 'outage';

export const TRANSITION_PREFIX = 'transition.';
export const REGION_PREFIX = 'region.';
export const REQUEST_FAULT_KEY = 'faults.requests';

/** How long a process trusts what it last read; other processes' changes show within this. */
const MAX_AGE_MS = 1000;

/**
 * What the operator has set (clock offset, transition durations, request faults, region outages),
 * read from the database and kept for at most a second, so the hot path reads memory only. Applies
 * the clock offset to the service clock and region outages to the catalog as it loads them.
 */
export class OperatorState {
  readonly #db: Db;
  readonly #clock: ServiceClock;
  readonly #catalog: Catalog;
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | null = null;
  #reads = 0;
  #applied = 0;
  transitions: ReadonlyMap<string, TransitionSetting> = new Map();
  regionStatus: ReadonlyMap<string, RegionStatus> = new Map();
  requestFault: (RequestFault & { matcher: FaultMatcher }) | null = null;

  constructor(db: Db, clock: ServiceClock, catalog: Catalog) {
    this.#db = db;
    this.#clock = clock;
    this.#catalog = catalog;
  }

  get clockOffsetMs(): number {
    return this.#clock.offsetMs;
  }

  transition(kind: TransitionKind): TransitionSetting | undefined {
    return this.transitions.get(kind);
  }

  /** Reloads when what was read is older than the cache allows (joining a read under way); nothing to wait for otherwise. */
  fresh(): Promise<void> | undefined {
    if (performance.now() - this.#loadedAt < MAX_AGE_MS) return undefined;
    return this.#loading ?? this.reload();
  }

  /**
   * Reads every setting now (after this process changed one, or when another may have). Always a read
   * of its own, so it sees a change made just before; a read that ends after a later one is dropped.
   */
  reload(): Promise<void> {
    const read = ++this.#reads;
    const loading = readSettings(this.#db).then((settings) => {
      if (read > this.#applied) {
        this.#applied = read;
        this.#apply(settings);
      }
    });
    this.#loading = loading;
    const settle = () => {
      if (this.#loading === loading) this.#loading = null;
    };
    loading.then(settle, settle);
    return loading;
  }

  /** Moves the persisted clock offset on by `ms` and reloads; returns the new offset. */
  async addClockOffset(ms: number): Promise<number> {
    const offset = await addClockOffset(this.#db, ms);
    this.#clock.setOffset(offset);
    await this.reload();
    return offset;
  }

  #apply(settings: Map<string, unknown>): void {
    const transitions = new Map<string, TransitionSetting>();
    const regions = new Map<string, RegionStatus>();
    let fault: OperatorState['requestFault'] = null;
    for (const [key, value] of settings) {
      if (key.startsWith(TRANSITION_PREFIX)) {
        const setting = asTransition(value);
        if (setting) transitions.set(key.slice(TRANSITION_PREFIX.length), setting);
      } else if (key.startsWith(REGION_PREFIX) && (value === 'ok' || value === 'outage')) {
        regions.set(key.slice(REGION_PREFIX.length), value);
      } else if (key === REQUEST_FAULT_KEY) {
        fault = asRequestFault(value);
      }
    }
    const offset = settings.get(CLOCK_OFFSET_KEY);
    this.#clock.setOffset(typeof offset === 'number' ? offset : 0);
    this.transitions = transitions;
    this.regionStatus = regions;
    this.requestFault = fault;
    this.#catalog.overrideRegionStatus(regions);
    this.#loadedAt = performance.now();
  }
}

function asTransition(value: unknown): TransitionSetting | null {
  const v = value as { mode?: unknown; seconds?: unknown } | null;
  if (v?.mode === 'manual') return { mode: 'manual' };
  if (v?.mode === 'seconds' && typeof v.seconds === 'number' && v.seconds >= 0) return { mode: 'seconds', seconds: v.seconds };
  return null;
}

function asRequestFault(value: unknown): OperatorState['requestFault'] {
  const v = value as Partial<RequestFault> | null;
  if (typeof v?.error_rate !== 'number' || typeof v.latency_ms !== 'number' || typeof v.match !== 'string') return null;
  try {
    return {
      error_rate: v.error_rate,
      latency_ms: v.latency_ms,
      match: v.match,
      status: v.status === 500 ? 500 : 503,
      matcher: parseFaultMatch(v.match),
    };
  } catch {
    return null;
  }
}
