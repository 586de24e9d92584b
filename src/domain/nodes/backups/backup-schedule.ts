import { BACKUP_DAYS, BACKUP_WINDOWS } from '../node.schema.ts';
import { mix32 } from '../seeded.ts';

/** Sunday..Saturday, in the order of Date#getUTCDay. */
const WEEKDAYS = BACKUP_DAYS.filter((d) => d !== 'Scheduling');
/** W0..W22: two-hour windows starting at that hour, UTC. */
const WINDOWS = BACKUP_WINDOWS.filter((w) => w !== 'Scheduling');
export type Weekday = (typeof WEEKDAYS)[number];
export type BackupWindow = (typeof WINDOWS)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const WINDOW_MS = 2 * HOUR_MS;

export interface Schedule {
  /** The day whose backup is kept longest (the weekly one); backups are taken every day. */
  day: Weekday;
  window: BackupWindow;
}

function isWeekday(day: string | null): day is Weekday {
  return (WEEKDAYS as readonly (string | null)[]).includes(day);
}

function isWindow(window: string | null): window is BackupWindow {
  return (WINDOWS as readonly (string | null)[]).includes(window);
}

/**
 * The schedule a node's automatic backups follow: the day and window it was given, and where it has
 * none (or `Scheduling`) the service's pick, derived from the node id so it is always the same one.
 */
export function effectiveSchedule(nodeId: number, day: string | null, window: string | null): Schedule {
  const h = mix32(nodeId, 0x5ced);
  return {
    day: isWeekday(day) ? day : (WEEKDAYS[h % WEEKDAYS.length] ?? 'Sunday'),
    window: isWindow(window) ? window : (WINDOWS[(h >>> 8) % WINDOWS.length] ?? 'W0'),
  };
}

function windowStartToday(ms: number, window: BackupWindow): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), Number(window.slice(1)));
}

export function inWindow(ms: number, window: BackupWindow): boolean {
  const start = windowStartToday(ms, window);
  return ms >= start && ms < start + WINDOW_MS;
}

/** The first moment after `ms` at which the window opens. */
export function nextWindowStart(ms: number, window: BackupWindow): number {
  const start = windowStartToday(ms, window);
  return start > ms ? start : start + DAY_MS;
}

/** When the next automatic backup is due: now if the window is open, else when it next opens. */
export function nextBackupAt(ms: number, window: BackupWindow): number {
  return inWindow(ms, window) ? ms : nextWindowStart(ms, window);
}

export function weekdayOf(ms: number): Weekday {
  return WEEKDAYS[new Date(ms).getUTCDay()] ?? 'Sunday';
}

/**
 * Which successful automatic backups to drop once a new one has succeeded: the two newest are kept,
 * and of the older ones the newest taken on the schedule's day (a weekly backup), or the newest of
 * them when none was; so at most three remain.
 */
export function automaticBackupsToDrop(backups: readonly { id: number; createdMs: number }[], day: Weekday): number[] {
  const newestFirst = [...backups].sort((a, b) => b.createdMs - a.createdMs || b.id - a.id);
  const older = newestFirst.slice(2);
  const weekly = older.find((b) => weekdayOf(b.createdMs) === day) ?? older[0];
  return older.filter((b) => b !== weekly).map((b) => b.id);
}
