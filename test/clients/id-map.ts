/**
 * Recorded ids and names, mapped onto the ones this server answered, per kind (the reference's
 * parameter names: `nodeId`, `diskId`, `username`, `address`, ...).
 *
 * A value is known when this server answered it for the line whose recorded answer held the
 * recorded one. Some ids reached the recorded client only in answers the recording leaves out
 * (a node's disks and configs from a list, an event from the feed): those are guessed, and only
 * for a line the client expected to be accepted, from what this server listed of that kind when
 * the client last read such a list: the recorded number itself (moved by the difference the last
 * known id of the kind showed) when the list holds it, else the first listed value no recorded
 * value maps onto yet. Names, addresses and image ids are never guessed.
 */

export type Scalar = string | number;

interface Listing {
  kind: string;
  /** The path of the list as sent, which the scope of a guess is compared with. */
  collection: string[];
  values: string[];
}

function numeric(value: Scalar): number | undefined {
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

function commonStart(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n += 1;
  return n;
}

function segments(path: string): string[] {
  return path.split('?', 1)[0]?.split('/') ?? [];
}

export class IdMap {
  #known = new Map<string, Map<string, Scalar>>();
  #offsets = new Map<string, number>();
  #listings: Listing[] = [];
  /** How each guessed value was chosen, for failure messages. */
  readonly guesses: string[] = [];

  /** This server answered `ours` where the recording's server answered `recorded`. */
  learn(kind: string, recorded: Scalar, ours: Scalar): void {
    this.#set(kind, recorded, ours);
    const r = numeric(recorded);
    const o = numeric(ours);
    if (r !== undefined && o !== undefined) this.#offsets.set(kind, o - r);
  }

  /** This server listed `values` of `kind` at `collection` (a path as sent). */
  learnListing(kind: string, collection: string, values: readonly Scalar[]): void {
    this.#listings.push({ kind, collection: segments(collection), values: values.map(String) });
  }

  /**
   * Ours for a recorded value, known only. An id written as its number alone (as grants name a
   * private image `16` whose id is `private/16`) is found by that number.
   */
  known(kind: string, recorded: Scalar): Scalar | undefined {
    const map = this.#known.get(kind);
    const exact = map?.get(String(recorded));
    if (exact !== undefined || typeof recorded !== 'number' || !map) return exact;
    for (const [key, ours] of map) {
      const ourNumber = key.endsWith(`/${recorded}`) ? numeric(String(ours).split('/').at(-1) ?? '') : undefined;
      if (ourNumber !== undefined) return ourNumber;
    }
    return undefined;
  }

  /** Ours for a recorded value: known, else guessed (see above) for a number used at `scope` (a path as sent). */
  resolve(kind: string, recorded: Scalar, scope: string, line: number): Scalar {
    const known = this.known(kind, recorded);
    if (known !== undefined) return known;
    const n = numeric(recorded);
    if (n === undefined) return recorded;
    const guess = String(n + (this.#offsets.get(kind) ?? 0));
    const listing = this.#listingFor(kind, segments(scope));
    let ours = guess;
    let why = listing ? 'listed by this server' : 'no list of them read';
    if (listing && !listing.values.includes(guess)) {
      const claimed = new Set([...(this.#known.get(kind)?.values() ?? [])].map(String));
      const free = listing.values.find((v) => !claimed.has(v));
      if (free !== undefined) [ours, why] = [free, 'the first value this server listed that nothing maps onto'];
      else why = 'every value this server listed is taken';
    }
    const value = typeof recorded === 'number' && numeric(ours) !== undefined ? Number(ours) : ours;
    this.#set(kind, recorded, value);
    this.guesses.push(`line ${line}: ${kind} ${recorded} guessed as ${value} (${why})`);
    return value;
  }

  #set(kind: string, recorded: Scalar, ours: Scalar): void {
    const map = this.#known.get(kind) ?? new Map<string, Scalar>();
    map.set(String(recorded), ours);
    this.#known.set(kind, map);
  }

  /** The list of `kind` whose path shares the longest start with `scope`; the later one on a tie. */
  #listingFor(kind: string, scope: readonly string[]): Listing | undefined {
    let best: Listing | undefined;
    let bestShared = -1;
    for (const listing of this.#listings) {
      if (listing.kind !== kind) continue;
      const shared = commonStart(listing.collection, scope);
      if (shared >= bestShared) [best, bestShared] = [listing, shared];
    }
    return best;
  }
}
