import net from 'node:net';
import type { Clock } from '../../time/clock.ts';

/** Wrong passwords allowed in a window for one user from one address, and from one address for any users. */
export const FAILURES_PER_USER_AND_ADDRESS = 10;
export const FAILURES_PER_ADDRESS = 30;
export const FAILURE_WINDOW_MS = 5 * 60_000;
/** Wrong passwords for one user, from anywhere, after which each further check of it is slowed down. */
export const FAILURES_BEFORE_SLOWING = 10;
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 4_000;
/** Keys kept per counter; the oldest go first, so that a flood of names or addresses cannot grow memory. */
const MAX_KEYS = 10_000;

interface Window {
  failures: number;
  endsMs: number;
}

/** Failures counted in fixed windows by the service clock, per key. */
class FailureCounter {
  readonly #windows = new Map<string, Window>();
  readonly #clock: Clock;
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  current(key: string): Window | undefined {
    const window = this.#windows.get(key);
    if (window && window.endsMs <= this.#clock.nowMs()) {
      this.#windows.delete(key);
      return undefined;
    }
    return window;
  }

  add(key: string): void {
    const window = this.current(key);
    if (window) {
      window.failures += 1;
      return;
    }
    this.#windows.set(key, { failures: 1, endsMs: this.#clock.nowMs() + FAILURE_WINDOW_MS });
    for (const oldest of this.#windows.keys()) {
      if (this.#windows.size <= MAX_KEYS) break;
      this.#windows.delete(oldest);
    }
  }

  clear(key: string): void {
    this.#windows.delete(key);
  }
}

/** An IPv6 address's /64 (one host usually holds the whole of it); an IPv4 address (mapped or not) itself. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!net.isIPv6(address)) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export type Verdict = { kind: 'refused'; retryAfterS: number } | { kind: 'check'; delayMs: number };

/**
 * Guessing passwords, limited without letting anyone lock a user out: only wrong passwords count,
 * per user and address and per address, and either limit reached refuses that address for the rest
 * of its window. A user's wrong passwords from everywhere never refuse; past a number they slow each
 * further check of that user down, however many addresses the guesses come from.
 */
export class SignInAttempts {
  readonly #clock: Clock;
  readonly #perPair: FailureCounter;
  readonly #perAddress: FailureCounter;
  readonly #perUser: FailureCounter;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#perPair = new FailureCounter(clock);
    this.#perAddress = new FailureCounter(clock);
    this.#perUser = new FailureCounter(clock);
  }

  /** Whether a password for `username` from `address` may be checked now, and after how long. */
  verdict(username: string, address: string): Verdict {
    const { pair, from, user } = keys(username, address);
    for (const [window, max] of [
      [this.#perPair.current(pair), FAILURES_PER_USER_AND_ADDRESS],
      [this.#perAddress.current(from), FAILURES_PER_ADDRESS],
    ] as const) {
      if (window && window.failures >= max) {
        return { kind: 'refused', retryAfterS: Math.max(1, Math.ceil((window.endsMs - this.#clock.nowMs()) / 1000)) };
      }
    }
    const over = (this.#perUser.current(user)?.failures ?? 0) - FAILURES_BEFORE_SLOWING;
    return { kind: 'check', delayMs: over < 0 ? 0 : Math.min(FIRST_DELAY_MS * 2 ** over, MAX_DELAY_MS) };
  }

  failed(username: string, address: string): void {
    const { pair, from, user } = keys(username, address);
    this.#perPair.add(pair);
    this.#perAddress.add(from);
    this.#perUser.add(user);
  }

  /** The right password: the guesses made for this user from this address no longer count. */
  succeeded(username: string, address: string): void {
    this.#perPair.clear(keys(username, address).pair);
  }
}

function keys(username: string, address: string) {
  const user = username.toLowerCase();
  const from = addressKey(address);
  return { pair: JSON.stringify([user, from]), from, user };
}
