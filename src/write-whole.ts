import fs from 'node:fs';

/**
 * Files written whole: beside the file first (a name of this process's own), then renamed over it, so
 * that a reader, or a process after a crash, finds the old content or the new, never part of one.
 */

function stagingName(file: string): string {
  return `${file}.${process.pid}.writing`;
}

export function writeFileWhole(file: string, content: string | Uint8Array, mode?: number): void {
  const staging = stagingName(file);
  fs.writeFileSync(staging, content, { mode });
  fs.renameSync(staging, file);
}

export async function writeFileWholeAsync(file: string, content: string | Uint8Array, mode?: number): Promise<void> {
  const staging = stagingName(file);
  await fs.promises.writeFile(staging, content, { mode });
  await fs.promises.rename(staging, file);
}
