import fs from 'node:fs';

/** Whether a process of this machine with that pid runs (another user's included). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process is there, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The fields of /proc/<pid>/stat (Linux) from the third on: [0] is the state, [1] the parent, [19]
 * the start time. Null when the process is gone or /proc is not there.
 */
export function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ...`: comm may hold spaces and parentheses, so read after the last `)`.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** When the process started (clock ticks since boot): a pid taken again by a later process differs in it. */
export function startTicks(pid: number): number | null {
  const ticks = Number(procStat(pid)?.[19]);
  return Number.isInteger(ticks) ? ticks : null;
}
