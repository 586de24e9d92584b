/**
 * Values derived from integers (a node id, a time bucket, a series number) that look random but
 * are the same on every call and in every process: no state, no Math.random.
 */

function fmix(x: number): number {
  let h = x;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of non-negative integers (each up to 2^53). */
export function mix32(...values: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    h = fmix((h ^ (v >>> 0)) + 0x7f4a7c15);
    h = fmix((h ^ Math.floor(v / 2 ** 32)) + 0x165667b1);
  }
  return h;
}

/** A number in [0, 1) derived from the integers. */
export function unitOf(...values: readonly number[]): number {
  return mix32(...values) / 2 ** 32;
}
