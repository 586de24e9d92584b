import fs from 'node:fs';
import type { NetworkSettings } from '../driver.ts';
import { NETWORK_INTERFACES_DIR } from '../images/guest.ts';
import { diskFiles } from './data-layout.ts';
import { checkExtFilesystem, isExtFilesystem } from './disk-store.ts';
import { writeExt4Files } from './ext4-settings.ts';
import { ifupdownInterfaces } from './guest-network.ts';

/**
 * The network helper: the interfaces' addresses written into disk `key`'s filesystem as a deploy
 * writes them (ifupdown stanzas), so a disk copied from another node comes up with this node's
 * addresses. A disk that is not a bare ext filesystem is left as it is. The disk must not be in use.
 */
export async function writeNetworkFiles(dir: string, key: string, network: readonly NetworkSettings[]): Promise<void> {
  const { disk } = diskFiles(dir, key);
  if (!fs.existsSync(disk) || !isExtFilesystem(disk)) return;
  await checkExtFilesystem(disk, { force: false });
  await writeExt4Files(disk, [{ path: `${NETWORK_INTERFACES_DIR}/cumulo`, content: ifupdownInterfaces(network), mode: 0o644 }]);
}
