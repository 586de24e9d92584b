import type { DeploySettings } from '../driver.ts';
import { environmentFile, FIRST_BOOT_ENV, FIRST_BOOT_SCRIPT, NETWORK_INTERFACES_DIR } from '../images/guest.ts';
import { type Ext4File, readExt4File, statExt4File, withRootPassword, writeExt4Files } from './ext4-settings.ts';
import { ifupdownInterfaces } from './guest-network.ts';
import { newSshHostKeys } from './ssh-host-keys.ts';

/** /etc/hosts with the machine's own name on 127.0.1.1 (Debian's convention), replacing an earlier one. */
export function withHostsEntry(hosts: string, hostname: string): string {
  const lines = hosts.split('\n').filter((line) => line.trim() !== '' && !/^127\.0\.1\.1\s/.test(line));
  if (!lines.some((line) => /^127\.0\.0\.1\s/.test(line))) lines.unshift('127.0.0.1\tlocalhost');
  return `${[...lines, `127.0.1.1\t${hostname}`].join('\n')}\n`;
}

/** A file replacing one the image has keeps that one's owner and mode (Debian's /etc/shadow is root:shadow 0640). */
async function replacing(image: string, file: Ext4File): Promise<Ext4File> {
  const stat = await statExt4File(image, file.path);
  return stat === undefined ? file : { ...file, ...stat };
}

/** The image's /etc/shadow with root's password hash set to `hash`, keeping the file's owner and mode. */
export async function shadowWithRootPassword(image: string, hash: string): Promise<Ext4File> {
  const shadow = (await readExt4File(image, '/etc/shadow')) ?? '';
  return replacing(image, { path: '/etc/shadow', content: withRootPassword(shadow, hash), mode: 0o600 });
}

/**
 * Writes the deploy-time settings into the ext filesystem in `image` (not mounted): hostname and
 * /etc/hosts, root's password hash and SSH keys, the interfaces' addresses (ifupdown stanzas), the
 * first-boot script (guest.ts says what the image does with each) and SSH host keys where the image
 * has an OpenSSH server without them.
 */
export async function writeDeploySettings(image: string, settings: DeploySettings): Promise<void> {
  const { hostname } = settings;
  if (!/^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/.test(hostname)) throw new Error(`not a hostname: ${JSON.stringify(hostname)}`);
  const files: Ext4File[] = [
    { path: '/etc/hostname', content: `${hostname}\n`, mode: 0o644 },
    { path: '/etc/hosts', content: withHostsEntry((await readExt4File(image, '/etc/hosts')) ?? '', hostname), mode: 0o644 },
    { path: `${NETWORK_INTERFACES_DIR}/cumulo`, content: ifupdownInterfaces(settings.network), mode: 0o644 },
  ];
  if (settings.rootPasswordHash !== null) files.push(await shadowWithRootPassword(image, settings.rootPasswordHash));
  if (settings.authorizedKeys.length > 0) {
    const keys = settings.authorizedKeys.map((key) => key.trim());
    if (keys.some((key) => key.includes('\n'))) throw new Error('an SSH key is one line');
    files.push({ path: '/root/.ssh/authorized_keys', content: `${keys.join('\n')}\n`, mode: 0o600 });
  }
  if (settings.firstBoot !== undefined) {
    files.push(
      { path: FIRST_BOOT_SCRIPT, content: settings.firstBoot.script, mode: 0o700 },
      { path: FIRST_BOOT_ENV, content: environmentFile(settings.firstBoot.env), mode: 0o600 },
    );
  }
  files.push(...(await newSshHostKeys(image, hostname)));
  await writeExt4Files(image, files);
}
