/**
 * Keeps the repository's copies of ../shared folders the tests read, so that they need nothing
 * outside the repository:
 * - test/clients/recorded/ from ../shared/clients/: the requests real client libraries sent, which
 *   test/clients/replay.test.ts replays;
 * - test/clients/live/ from ../shared/live/: the shapes of the live service's answers, which the
 *   replay's answers are checked against, in this project's words: the live service's brand word
 *   becomes `node`, as everywhere here (`*_id` of a node is `node_id`).
 * Every file is copied (the READMEs with the formats too), and a kept file the shared folder no
 * longer has is removed.
 *
 *   node scripts/shared-copies.ts      (rewrites the kept copies when the shared folders are at hand)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const RECORDED_DIR = fileURLToPath(new URL('../test/clients/recorded/', import.meta.url));
export const LIVE_DIR = fileURLToPath(new URL('../test/clients/live/', import.meta.url));

/** The live service's brand word, in each of its cases, as this project writes it. */
const BRAND = new RegExp(['l', 'i', 'n', 'o', 'd', 'e'].join(''), 'gi');
function neutral(text: string): string {
  return text.replace(BRAND, (word) => (word === word.toUpperCase() ? 'NODE' : word[0] === 'L' ? 'Node' : 'node'));
}

/** Each kept folder beside the shared one it copies, and what the copy does to a file's text. */
export const SHARED_COPIES: readonly { shared: string; kept: string; text: (shared: string) => string }[] = [
  { shared: fileURLToPath(new URL('../../shared/clients/', import.meta.url)), kept: RECORDED_DIR, text: (t) => t },
  { shared: fileURLToPath(new URL('../../shared/live/', import.meta.url)), kept: LIVE_DIR, text: neutral },
];

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
  for (const { shared, kept, text: copyOf } of SHARED_COPIES) {
    if (!fs.existsSync(shared)) {
      console.error(`shared-copies: ${shared} is not here; ${kept} stays as it is`);
      process.exitCode = 1;
      continue;
    }
    const files = filesOf(shared);
    fs.mkdirSync(kept, { recursive: true });
    for (const name of filesOf(kept).keys()) {
      if (!files.has(name)) fs.rmSync(path.join(kept, name));
    }
    for (const [name, text] of files) fs.writeFileSync(path.join(kept, name), copyOf(text));
    console.log(`shared-copies: copied ${[...files.keys()].join(', ')} into ${kept}`);
  }
}
