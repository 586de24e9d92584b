let lastSecond = Number.NaN;
let lastText = '';

/** The reference's date-time form: UTC, second precision, no zone designator. */
export function toTimestamp(ms: number): string {
  // A request asks for the same second many times; formatting a date is the costly part.
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().slice(0, 19);
    lastSecond = second;
  }
  return lastText;
}

/** Accepts an ISO 8601 date-time (with or without zone) and returns it in the stored form, or null. */
export function normalizeTimestamp(value: string): string | null {
  const withZone = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(withZone);
  return Number.isNaN(ms) ? null : toTimestamp(ms);
}
