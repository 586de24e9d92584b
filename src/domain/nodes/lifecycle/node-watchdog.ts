/** The shutdown watchdog gives up once it has issued more than this many boots within the window. */
export const WATCHDOG_MAX_BOOTS = 5;
export const WATCHDOG_WINDOW_MS = 15 * 60_000;

/**
 * Whether the watchdog boots a node that has just powered off on its own, given the service-clock
 * times of its earlier watchdog boots; returns the boot times to keep (those within the window,
 * plus this one if it boots). Boots are issued until more than five fall within fifteen minutes:
 * the sixth is issued, the seventh is not.
 */
export function watchdogDecision(boots: readonly number[], nowMs: number): { boot: boolean; boots: number[] } {
  const recent = boots.filter((t) => t > nowMs - WATCHDOG_WINDOW_MS);
  if (recent.length > WATCHDOG_MAX_BOOTS) return { boot: false, boots: recent };
  return { boot: true, boots: [...recent, nowMs] };
}
