/**
 * An automatic backup window (W0..W22: two hours from that UTC hour) half a day from now. A node
 * whose window is open when its backup service is turned on takes its automatic backup at once, and
 * a snapshot asked for meanwhile is refused (the node is busy): a test that takes a snapshot gives
 * the node this window first, or it would fail at some hours of the day.
 */
export function backupWindowAwayFromNow(now = new Date()): string {
  const hour = (now.getUTCHours() + 12) % 24;
  return `W${hour - (hour % 2)}`;
}
