/** The reference's date-time form: UTC, second precision, no zone designator. */
export function toTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** Accepts an ISO 8601 date-time (with or without zone) and returns it in the stored form, or null. */
export function normalizeTimestamp(value: string): string | null {
  const withZone = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? null : toTimestamp(ms);
}
