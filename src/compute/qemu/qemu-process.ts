import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { procStat } from '../../processes.ts';

/** The pid in a QEMU pid file, or null when there is none. */
export function readPid(pidFile: string): number | null {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Whether `pid` is the QEMU started with `pidFile`: its command line names both, so a pid reused by
 * another process does not count. A zombie has no command line, so it counts as gone.
 */
export function isQemuAlive(pid: number, pidFile: string): boolean {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.some((arg) => arg.includes('qemu-system')) && args.includes(pidFile);
  } catch {
    return false;
  }
}

/** The live QEMU of a pid file, or null. */
export function livePid(pidFile: string): number | null {
  const pid = readPid(pidFile);
  return pid !== null && isQemuAlive(pid, pidFile) ? pid : null;
}

/** Resolves true once the process is gone, false when it is still there after `timeoutMs`. */
export async function waitGone(pid: number, pidFile: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isQemuAlive(pid, pidFile)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

/** SIGKILL, then waits for the process to be gone. */
export async function killQemu(pid: number, pidFile: string): Promise<void> {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
  if (!(await waitGone(pid, pidFile, 10_000))) throw new Error(`QEMU (pid ${pid}) did not end after SIGKILL`);
}

/** CPU time (user and system) the process has used, from /proc/<pid>/stat; null when it is gone. */
export function cpuSeconds(pid: number): number | null {
  const fields = procStat(pid);
  if (fields === null) return null;
  const userHz = 100; // the unit of utime and stime: USER_HZ, 100 on every Linux architecture QEMU runs here
  return (Number(fields[11]) + Number(fields[12])) / userHz;
}
