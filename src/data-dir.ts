import fs from 'node:fs';
import path from 'node:path';

/**
 * The data dir (CUMULO_DATA_DIR) and what Cumulo keeps in it are for the owner only: the database
 * holds token hashes and everything of every account, the keys in `secrets/` guard root password
 * hashes and the sealed managed credentials.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

export const DATABASE_FILE = 'cumulo.sqlite';
export const BLOBS_DIR = 'blobs';
export const SECRETS_DIR = 'secrets';
/** Disks and machines of the qemu driver (src/compute/qemu). */
export const COMPUTE_DIR = 'compute';
/** Files on their way into the blob store (the same filesystem, so they move by a link). */
export const STAGING_DIR = 'staging';

/** Cumulo's own entries in the data dir (SQLite's companions included); anything else there is left alone. */
const OWN_ENTRIES = [
  DATABASE_FILE,
  ...['-wal', '-shm', '-journal'].map((s) => DATABASE_FILE + s),
  BLOBS_DIR,
  SECRETS_DIR,
  COMPUTE_DIR,
  STAGING_DIR,
];

/** Makes a directory (and its missing parents) for the owner only. */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Creates an empty file for the owner only unless it exists, so that whatever opens it next keeps that mode. */
export function touchPrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
}

/** Takes group and other permissions away from one entry; whether it had any. */
function tighten(entry: string, stat: fs.Stats): boolean {
  const mode = stat.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
  if ((stat.mode & 0o777 & ~mode) === 0) return false;
  fs.chmodSync(entry, stat.mode & mode);
  return true;
}

/**
 * A directory that was already private was made by this version, which makes what it puts in it
 * private too: only one that was open (an older install) is walked, so a start does not visit every blob.
 */
function tightenTree(entry: string): void {
  const stat = fs.lstatSync(entry, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return;
  const wasOpen = tighten(entry, stat);
  if (stat.isDirectory() && wasOpen) for (const name of fs.readdirSync(entry)) tightenTree(path.join(entry, name));
}

/**
 * Takes group and other permissions away from an existing data dir and Cumulo's files in it (made
 * world-readable by older versions). The dir itself is left as it is when it is shared (sticky, like
 * /tmp) or another user's.
 */
export function secureDataDir(dataDir: string): void {
  const stat = fs.lstatSync(dataDir, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return;
  const shared = (stat.mode & 0o1000) !== 0 || (process.getuid !== undefined && stat.uid !== process.getuid());
  if (!shared) tighten(dataDir, stat);
  for (const name of OWN_ENTRIES) tightenTree(path.join(dataDir, name));
}
