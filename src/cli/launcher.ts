import fs from 'node:fs';
import { procStat } from '../processes.ts';

/** How often the launcher is looked for. */
const CHECK_MS = 500;
/** No launcher is deeper than this (npm, its shell, npm again in a script, ...). */
const MAX_DEPTH = 16;

/** The parent of `pid`, from /proc (Linux); undefined when the process is gone or /proc is not there. */
function parentOf(pid: number): number | undefined {
  const ppid = Number(procStat(pid)?.[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/** Whether `pid` was started by an npm-like launcher: npm, npx, yarn and pnpm set npm_lifecycle_event for what they run. */
function startedByLauncher(pid: number): boolean {
  try {
    return fs
      .readFileSync(`/proc/${pid}/environ`, 'latin1')
      .split('\0')
      .some((v) => v.startsWith('npm_lifecycle_event='));
  } catch {
    return false;
  }
}

/**
 * This process's ancestors up to and including the npm (or npx, yarn, pnpm) that launched it: the
 * shell it runs the command in, and npm itself. Empty when nothing launched it so.
 */
function launcherChain(): number[] {
  if (process.env.npm_lifecycle_event === undefined) return [];
  const chain = [process.ppid];
  for (let pid = process.ppid; startedByLauncher(pid) && chain.length < MAX_DEPTH; ) {
    const parent = parentOf(pid);
    if (parent === undefined || parent <= 1) break;
    chain.push(parent);
    pid = parent;
  }
  return chain;
}

/** Whether each process of `chain` is still the parent of the one before it: any of them ending breaks the chain. */
function chainHolds(chain: readonly number[]): boolean {
  if (process.ppid !== chain[0]) return false;
  return chain.slice(1).every((pid, i) => parentOf(chain[i] as number) === pid);
}

/**
 * Calls `onGone` once when the launcher that started this process (`npm start`, `npx cumulo serve`)
 * has ended. npm passes a SIGTERM to the shell it runs the command in, which ends without passing it
 * on, and a SIGKILL passes nowhere: either way the server would be left running with its port. A
 * process started otherwise (systemd, a shell, nohup) is not watched. Returns the function that stops
 * watching.
 */
export function onLauncherGone(onGone: () => void): () => void {
  const chain = launcherChain();
  if (chain.length === 0) return () => {};
  const timer = setInterval(() => {
    if (chainHolds(chain)) return;
    clearInterval(timer);
    onGone();
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
