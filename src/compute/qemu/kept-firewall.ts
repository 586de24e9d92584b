import fs from 'node:fs';
import { writeFileWhole } from '../../write-whole.ts';
import type { MachineFiles } from './data-layout.ts';

/**
 * A machine's firewall as the driver keeps it in its folder (`firewall.nft`): the last rendered
 * ruleset given, whether the machine ran then or not, so that every start loads it before the guest
 * runs. No file: no firewall.
 */

export function keptFirewall(files: MachineFiles): string | null {
  try {
    return fs.readFileSync(files.firewall, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Replaces the kept ruleset whole; null removes it. */
export function keepFirewall(files: MachineFiles, ruleset: string | null): void {
  if (ruleset === null) {
    fs.rmSync(files.firewall, { force: true });
    return;
  }
  fs.mkdirSync(files.folder, { recursive: true, mode: 0o700 });
  writeFileWhole(files.firewall, ruleset, 0o600);
}
