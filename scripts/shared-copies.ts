/**
 * Keeps test/clients/recorded/ a copy of ../shared/clients/: the requests real client libraries
 * sent, which test/clients/replay.test.ts replays. Every file is copied (the README with the
 * format too), and a kept file the shared folder no longer has is removed. The tests read the
 * kept copy, so they need nothing outside the repository.
 *
 *   node scripts/client-recordings.ts      (rewrites the kept copy when the shared folder is at hand)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SHARED_CLIENTS_DIR = fileURLToPath(new URL('../../shared/clients/', import.meta.url));
export const RECORDED_DIR = fileURLToPath(new URL('../test/clients/recorded/', import.meta.url));

/** The files of a folder (not its subfolders) by name, with their text. */
export function filesOf(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!fs.existsSync(dir)) return files;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isFile()) files.set(entry.name, fs.readFileSync(path.join(dir, entry.name), 'utf8'));
  }
  return files;
}

if (import.meta.main) {
  if (!fs.existsSync(SHARED_CLIENTS_DIR)) {
    console.error(`client-recordings: ${SHARED_CLIENTS_DIR} is not here; the kept copy stays as it is`);
    process.exit(1);
  }
  const shared = filesOf(SHARED_CLIENTS_DIR);
  fs.mkdirSync(RECORDED_DIR, { recursive: true });
  for (const name of filesOf(RECORDED_DIR).keys()) {
    if (!shared.has(name)) fs.rmSync(path.join(RECORDED_DIR, name));
  }
  for (const [name, text] of shared) fs.writeFileSync(path.join(RECORDED_DIR, name), text);
  console.log(`client-recordings: copied ${[...shared.keys()].join(', ')} into ${RECORDED_DIR}`);
}
