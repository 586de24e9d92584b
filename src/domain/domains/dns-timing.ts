/** The seconds a domain's timing fields and a record's TTL take; other values are rounded to one of them. */
export const VALID_SECONDS = [300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600, 2419200] as const;

/** What 0 (the stored "default") means for each of a domain's timing fields. */
export const DEFAULT_SECONDS = { expire_sec: 1209600, refresh_sec: 14400, retry_sec: 14400, ttl_sec: 86400 } as const;
export type TimingField = keyof typeof DEFAULT_SECONDS;
export const TIMING_FIELDS = Object.keys(DEFAULT_SECONDS) as TimingField[];

const LONGEST = VALID_SECONDS[VALID_SECONDS.length - 1] ?? 0;

/**
 * A domain's timing field as the reference says: 0 stays 0 (the default), any other value rounds
 * up to the next valid one (4000 is 7200); above the longest, the longest.
 */
export function roundDomainSeconds(value: number): number {
  if (value === 0) return 0;
  return VALID_SECONDS.find((valid) => valid >= value) ?? LONGEST;
}

/**
 * A record's TTL as given: the nearest valid value, a tie going up (1950 is 3600). 0 is not among
 * them, so it becomes 300; a record stores 0 only when created without a TTL (the domain's).
 */
export function roundRecordTtl(value: number): number {
  let best: number = VALID_SECONDS[0];
  for (const valid of VALID_SECONDS) {
    if (Math.abs(valid - value) <= Math.abs(best - value)) best = valid;
  }
  return best;
}

/** A stored timing value as the zone uses it: 0 is the field's default. */
export function effectiveSeconds(field: TimingField, stored: number): number {
  return stored === 0 ? DEFAULT_SECONDS[field] : stored;
}
