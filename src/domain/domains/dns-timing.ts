/** The seconds a domain's timing fields and a record's TTL take; anything else is rounded to the nearest. */
export const VALID_SECONDS = [300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600, 2419200] as const;

/** What 0 (the stored "default") means for each of a domain's timing fields. */
export const DEFAULT_SECONDS = { expire_sec: 1209600, refresh_sec: 14400, retry_sec: 14400, ttl_sec: 86400 } as const;
export type TimingField = keyof typeof DEFAULT_SECONDS;
export const TIMING_FIELDS = Object.keys(DEFAULT_SECONDS) as TimingField[];

/** 0 stays 0 (the default); any other value becomes the nearest valid one, a tie going up. */
export function roundSeconds(value: number): number {
  if (value === 0) return 0;
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
