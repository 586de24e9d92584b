import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE, SECRETS_DIR } from '../data-dir.ts';

/** Every key of the installation is 256 bits. */
export const KEY_BYTES = 32;

/**
 * A key of the installation kept in `<data dir>/secrets/<name>` (base64, for the owner only): read,
 * or made by the first process that needs it. The data dir is what every server process of a
 * deployment already shares (the blobs live there), so they all find the same key; when two start
 * at once, the first to write the file wins and the other reads what it wrote.
 */
export function installationKey(dataDir: string, name: string): Buffer {
  const file = path.join(dataDir, SECRETS_DIR, name);
  if (!fs.existsSync(file)) writeOnce(file, crypto.randomBytes(KEY_BYTES).toString('base64'));
  const bytes = decodeKey(fs.readFileSync(file, 'utf8'));
  if (!bytes) throw new Error(`${file} does not hold a ${KEY_BYTES}-byte key (base64 or hex)`);
  return bytes;
}

/**
 * Puts a whole file in place unless one is there: written under a name of its own, then linked to
 * `file` (which fails if it exists), so no process ever reads it half written.
 */
function writeOnce(file: string, content: string): void {
  makePrivateDir(path.dirname(file));
  const draft = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  fs.writeFileSync(draft, content, { flag: 'wx', mode: PRIVATE_FILE_MODE });
  try {
    fs.linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.unlinkSync(draft);
  }
}

/** A 256-bit key written as 64 hex digits or as base64; null when the text is neither. */
export function decodeKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return null;
  const bytes = Buffer.from(trimmed, 'base64');
  return bytes.length === KEY_BYTES ? bytes : null;
}
