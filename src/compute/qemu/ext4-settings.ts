import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from './run.ts';

/** A file to place in an ext4 image; `mode` holds the permission bits only. Owned by root unless told. */
export type Ext4File = { path: string; content: string | Buffer; mode: number; uid?: number; gid?: number };

function ancestors(file: string): string[] {
  const dirs: string[] = [];
  for (let dir = path.posix.dirname(file); dir !== '/'; dir = path.posix.dirname(dir)) dirs.unshift(dir);
  return dirs;
}

function quoted(value: string): string {
  if (/["\\\n]/.test(value)) throw new Error(`a path debugfs cannot take: ${JSON.stringify(value)}`);
  return `"${value}"`;
}

async function exists(image: string, file: string): Promise<boolean> {
  return (await run('debugfs', ['-R', `stat ${quoted(file)}`, image])).includes('Inode:');
}

/** The permission bits and owner of `file` in the image, or undefined when it is not there. */
export async function statExt4File(image: string, file: string): Promise<{ mode: number; uid: number; gid: number } | undefined> {
  const stat = await run('debugfs', ['-R', `stat ${quoted(file)}`, image]);
  const mode = /Mode:\s+0?([0-7]+)/.exec(stat)?.[1];
  const owner = /User:\s+(\d+)\s+Group:\s+(\d+)/.exec(stat);
  if (mode === undefined || owner?.[1] === undefined || owner[2] === undefined) return undefined;
  return { mode: Number.parseInt(mode, 8) & 0o7777, uid: Number(owner[1]), gid: Number(owner[2]) };
}

/** The content of `file` in the image, or undefined when it is not there. */
export async function readExt4File(image: string, file: string): Promise<string | undefined> {
  if (!(await exists(image, file))) return undefined;
  return run('debugfs', ['-R', `cat ${quoted(file)}`, image]);
}

/**
 * Writes `files` into the ext4 filesystem in `image` (a whole-disk filesystem, not a partition) without
 * mounting it: debugfs in write mode, which replaces a file already there and makes missing directories
 * (mode 0755, or 0700 under /root; directories already there keep theirs). The image must not be in use by a running machine.
 */
export async function writeExt4Files(image: string, files: readonly Ext4File[]): Promise<void> {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-ext4-'));
  try {
    const dirs: string[] = [];
    for (const dir of new Set(files.flatMap((file) => ancestors(file.path)))) if (!(await exists(image, dir))) dirs.push(dir);
    const commands = dirs.flatMap((dir) => [
      `mkdir ${quoted(dir)}`,
      `sif ${quoted(dir)} mode 0${(0o040000 | (dir.startsWith('/root') ? 0o700 : 0o755)).toString(8)}`,
    ]);
    files.forEach((file, index) => {
      const source = path.join(staging, String(index));
      fs.writeFileSync(source, file.content);
      commands.push(
        `rm ${quoted(file.path)}`,
        `write ${quoted(source)} ${quoted(file.path)}`,
        `sif ${quoted(file.path)} mode 0${(0o100000 | file.mode).toString(8)}`,
        `sif ${quoted(file.path)} uid ${file.uid ?? 0}`,
        `sif ${quoted(file.path)} gid ${file.gid ?? 0}`,
      );
    });
    const script = path.join(staging, 'commands');
    fs.writeFileSync(script, `${commands.join('\n')}\n`);
    // debugfs reports a failed command on stderr and goes on (an rm of a missing file is expected), so
    // what was meant is checked by reading every file back.
    await run('debugfs', ['-w', '-f', script, image]);
    for (const file of files) {
      const written = await readExt4File(image, file.path);
      if (written === undefined || Buffer.compare(Buffer.from(written), Buffer.from(file.content)) !== 0)
        throw new Error(`debugfs did not write ${file.path} into ${image}`);
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** /etc/shadow's text with root's password field set to `hash` (a crypt(3) string). */
export function withRootPassword(shadow: string, hash: string): string {
  if (hash.includes(':') || hash.includes('\n')) throw new Error('a password hash has no ":" or newline');
  const lines = shadow.split('\n').filter((line) => line !== '');
  const rest = lines.filter((line) => !line.startsWith('root:'));
  const root = lines.find((line) => line.startsWith('root:'))?.split(':') ?? ['root', '', '20000', '0', '99999', '7', '', '', ''];
  root[1] = hash;
  return `${[root.join(':'), ...rest].join('\n')}\n`;
}
