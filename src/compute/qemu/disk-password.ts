import { shadowWithRootPassword } from './deploy-settings.ts';
import { checkExtFilesystem, isExtFilesystem } from './disk-store.ts';
import { writeExt4Files } from './ext4-settings.ts';

/**
 * Sets root's password hash (crypt(3)) in /etc/shadow of the ext filesystem in `file`, without
 * mounting it; the file keeps its owner and mode. The disk must not be in use. Done again, it writes the same.
 */
export async function writeRootPassword(file: string, hash: string): Promise<void> {
  if (!isExtFilesystem(file)) throw new Error(`${file} holds no bare ext filesystem: its root password cannot be set`);
  await checkExtFilesystem(file);
  await writeExt4Files(file, [await shadowWithRootPassword(file, hash)]);
}
