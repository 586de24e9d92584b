/** RFC 1982 serial number arithmetic on 32-bit SOA serials: comparisons that survive wrapping past 2^32 - 1. */
const HALF = 2 ** 31;
const FULL = 2 ** 32;

/** Whether serial `a` is `b` or later. */
export function serialAtLeast(a: number, b: number): boolean {
  return (a - b + FULL) % FULL < HALF;
}

/** Whether serial `a` is later than `b`. */
export function serialNewer(a: number, b: number): boolean {
  return a !== b && serialAtLeast(a, b);
}
