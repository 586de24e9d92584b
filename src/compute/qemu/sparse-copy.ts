import fs from 'node:fs';
import type { Progress } from '../driver.ts';
import { run } from './run.ts';

/** How often a copy under way is measured. */
const POLL_MS = 250;

/** The blocks a file takes on its filesystem (a sparse file's holes take none); 0 for a missing file. */
function blocksOf(file: string): number {
  try {
    return fs.statSync(file).blocks;
  } catch {
    return 0;
  }
}

/**
 * A sparse copy: only the blocks that hold data are written, the rest stays holes. While it runs,
 * `onProgress` is told what share of the source's blocks the copy holds, then 1 once it is whole.
 */
export async function copySparse(source: string, target: string, onProgress?: Progress): Promise<void> {
  const total = blocksOf(source);
  const timer =
    onProgress && total > 0 ? setInterval(() => onProgress(Math.min(1, blocksOf(target) / total)), POLL_MS) : undefined;
  try {
    await run('cp', ['--sparse=always', source, target]);
  } finally {
    clearInterval(timer);
  }
  onProgress?.(1);
}
