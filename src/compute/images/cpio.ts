/** One entry of an initramfs: a directory, a regular file or a symbolic link. */
export type CpioEntry =
  | { path: string; type: 'dir'; mode?: number }
  | { path: string; type: 'file'; data: Buffer; mode?: number }
  | { path: string; type: 'symlink'; target: string };

const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

function pad4(length: number): Buffer {
  return Buffer.alloc((4 - (length % 4)) % 4);
}

function record(ino: number, mode: number, name: string, data: Buffer): Buffer[] {
  const nameBytes = Buffer.from(`${name}\0`);
  const fields = [ino, mode, 0, 0, 1, 0, data.length, 0, 0, 0, 0, nameBytes.length, 0];
  const header = Buffer.from(`070701${fields.map((f) => f.toString(16).padStart(8, '0')).join('')}`, 'ascii');
  return [header, nameBytes, pad4(header.length + nameBytes.length), data, pad4(data.length)];
}

/** A "newc" cpio archive, the format the kernel unpacks as an initramfs; every entry owned by root. */
export function newcArchive(entries: readonly CpioEntry[]): Buffer {
  const parts = entries.flatMap((entry, index) => {
    const name = entry.path.replace(/^\/+/, '');
    if (entry.type === 'dir') return record(index + 1, S_IFDIR | (entry.mode ?? 0o755), name, Buffer.alloc(0));
    if (entry.type === 'file') return record(index + 1, S_IFREG | (entry.mode ?? 0o644), name, entry.data);
    return record(index + 1, S_IFLNK | 0o777, name, Buffer.from(entry.target));
  });
  return Buffer.concat([...parts, ...record(0, 0, 'TRAILER!!!', Buffer.alloc(0))]);
}
