import { shadowWithRootPassword } from './deploy-settings.ts';
import { isExtFilesystem } from './disk-store.ts';
import { writeExt4Files } from './ext4-settings.ts';
import { run } from './run.ts';

/**
 * Sets root's password hash (crypt(3)) in /etc/shadow of the ext filesystem in `file`, without
 * mounting it; the file keeps its owner and mode. The disk must not be in use. Done again, it writes the same.
 */
export async function writeRootPassword(file: string, hash: string): Promise<void> {
  if (!isExtFilesystem(file)) throw new Error(`${file} holds no bare ext filesystem: its root password cannot be set`);
  // A guest that did not unmount it leaves its journal to replay, which would undo what debugfs writes.
  // e2fsck exits 1 or 2 when it has fixed something: the filesystem is sound then.
  await run('e2fsck', ['-f', '-y', file], { okExitCodes: [0, 1, 2] });
  await writeExt4Files(file, [await shadowWithRootPassword(file, hash)]);
}
