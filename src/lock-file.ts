import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive, startTicks } from './processes.ts';

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Whether a lock's holder may still be there: its process is (and, where the lock holds one, the pid's
 * start time is the one the lock holds: a pid is taken again by later processes), or the lock is
 * being written. Without /proc a lock holds no start time, and the pid alone says.
 */
function holderThere(file: string, content: string): boolean {
  const [pidText, ticksText] = content.split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) {
    try {
      return Date.now() - fs.statSync(file).mtimeMs < 10_000;
    } catch {
      return false;
    }
  }
  const ticks = Number(ticksText);
  return processAlive(pid) && (!Number.isInteger(ticks) || startTicks(pid) === ticks);
}

/**
 * Waits until `file` can be created, then holds it: a lock between the processes of one machine. The
 * file holds the holder's pid and a token of its own; a lock whose process has ended is taken over,
 * and the returned release removes the lock only while it is still this holder's.
 */
export async function holdLockFile(file: string, pollMs = 200): Promise<() => void> {
  const token = `${process.pid} ${startTicks(process.pid)} ${randomUUID()}`;
  for (;;) {
    try {
      fs.writeFileSync(file, token, { flag: 'wx' });
      return () => {
        if (readOrNull(file) === token) fs.rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = readOrNull(file);
    if (held === null) continue;
    if (holderThere(file, held)) {
      await sleep(pollMs);
      continue;
    }
    // Moved aside, not removed: of waiters that saw the same ended holder, one takes it; one that
    // moved a newer holder's lock instead puts it back.
    const aside = `${file}.${token.replaceAll(' ', '-')}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      continue;
    }
    if (readOrNull(aside) !== held) {
      try {
        fs.linkSync(aside, file);
      } catch {}
    }
    fs.rmSync(aside, { force: true });
  }
}
