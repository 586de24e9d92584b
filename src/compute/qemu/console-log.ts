import fs from 'node:fs';
import { writeFileWholeAsync } from '../../write-whole.ts';
import type { MachineFiles } from './data-layout.ts';
import { fileTail } from './serial-console.ts';

/** The default cap of a machine's console log (CUMULO_CONSOLE_LOG_MB). */
export const DEFAULT_CONSOLE_LOG_BYTES = 4 * 1024 * 1024;

type LogFiles = Pick<MachineFiles, 'consoleLog' | 'previousConsoleLog'>;

/** The last `bytes` the console printed, across its log and the one rotated out before it. */
export function consoleLogTail(files: LogFiles, bytes: number): Buffer {
  const current = fileTail(files.consoleLog, bytes);
  if (current.length >= bytes) return current;
  return Buffer.concat([fileTail(files.previousConsoleLog, bytes - current.length), current]);
}

async function readRange(handle: fs.promises.FileHandle, from: number, to: number): Promise<Buffer> {
  const bytes = Buffer.alloc(Math.max(0, to - from));
  const { bytesRead } = await handle.read(bytes, 0, bytes.length, from);
  return bytes.subarray(0, bytesRead);
}

/**
 * Keeps a console log that QEMU appends to near `capBytes`: once past it, its last `capBytes` become
 * the previous log (`console.log.1`, replacing the one before) and the log is emptied in place, so
 * the two take about twice the cap. QEMU holds the log open with O_APPEND (logappend=on), so its
 * next write lands at the new end, leaving no hole; what it writes between the last read and the
 * truncation, a moment, is lost. Resolves whether it rotated.
 */
export async function rotateConsoleLog(files: LogFiles, capBytes: number): Promise<boolean> {
  const size = await fs.promises.stat(files.consoleLog).then(
    (stats) => stats.size,
    () => 0,
  );
  if (size <= capBytes) return false;
  const handle = await fs.promises.open(files.consoleLog, 'r');
  let kept: Buffer;
  try {
    const tail = await readRange(handle, size - capBytes, size);
    // What was written while the tail was read, read last, right before the truncation.
    const later = await readRange(handle, size, (await handle.stat()).size);
    await fs.promises.truncate(files.consoleLog, 0);
    kept = Buffer.concat([tail, later]);
  } finally {
    await handle.close();
  }
  await writeFileWholeAsync(files.previousConsoleLog, kept, 0o600);
  return true;
}
