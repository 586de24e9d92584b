import fs from 'node:fs';
import path from 'node:path';
import { run } from '../qemu/run.ts';

/** The Debian release every image is built from. */
export const SUITE = 'bookworm';

/** A file laid into an image's tree; `mode` holds the permission bits. Owned by whoever builds (root). */
export type TreeFile = { path: string; content: string; mode: number };

const BLOCK = 4096;
/** Free space a built root filesystem keeps beyond what its files take (the deploy grows it to the disk's size). */
const HEADROOM_BYTES = 256 * 1024 * 1024;

export function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** Writes `files` under `root`, making their directories; a file already there is replaced. */
export function layFiles(root: string, files: readonly TreeFile[]): void {
  for (const file of files) {
    const target = path.join(root, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.rmSync(target, { force: true });
    fs.writeFileSync(target, file.content);
    fs.chmodSync(target, file.mode);
  }
}

/** What a tree takes on ext4 with 4 KiB blocks: its blocks (hard links counted once) and its inodes. */
export function measureTree(root: string): { bytes: number; inodes: number } {
  const seen = new Set<number>();
  let bytes = 0;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      const stat = fs.lstatSync(file);
      if (seen.has(stat.ino)) continue;
      seen.add(stat.ino);
      bytes += Math.ceil(stat.size / BLOCK) * BLOCK;
      if (entry.isDirectory()) walk(file);
    }
  };
  walk(root);
  return { bytes, inodes: seen.size + 1 };
}

/**
 * An ext4 filesystem made from `root`'s contents (mke2fs -d: nothing is mounted), in a file of
 * `sizeMb`, or sized to fit the tree with some headroom when not given.
 */
export async function makeRootFilesystem(root: string, file: string, sizeMb?: number): Promise<void> {
  const tree = measureTree(root);
  // Metadata (inode tables, journal, group descriptors) takes about a tenth on a filesystem this size.
  const size = sizeMb ?? Math.ceil((tree.bytes * 1.1 + HEADROOM_BYTES) / (1024 * 1024));
  const sizing = sizeMb === undefined ? ['-T', 'default', '-b', String(BLOCK), '-N', String(tree.inodes * 2)] : [];
  await run('mke2fs', ['-q', '-t', 'ext4', '-L', 'root', ...sizing, '-d', root, file, `${size}M`]);
}

/** The one file in `dir` whose name starts with `prefix` (a kernel or initrd in /boot). */
export function onlyFile(dir: string, prefix: string): string {
  const found = fs.readdirSync(dir).filter((name) => name.startsWith(prefix));
  if (found.length !== 1) throw new Error(`expected one ${prefix}* in ${dir}, found ${found.length}`);
  return path.join(dir, found[0] as string);
}
