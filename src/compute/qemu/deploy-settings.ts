import type { DeploySettings } from '../driver.ts';
import { type Ext4File, readExt4File, statExt4File, withRootPassword, writeExt4Files } from './ext4-settings.ts';
import { FIRSTBOOT_ENV_FILE, FIRSTBOOT_FILE, NETWORK_FILE } from './guest-contract.ts';
import { cumuloNetworkFile, ifupdownInterfaces } from './guest-network.ts';

const IFUPDOWN_FILE = '/etc/network/interfaces';

/** `value` as one sh word: single-quoted, a quote inside written as `'\''`. */
export function shellQuoted(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** FIRSTBOOT_ENV_FILE's text: one `KEY='value'` line per variable. */
export function firstBootEnvFile(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a shell variable name: ${JSON.stringify(name)}`);
      return `${name}=${shellQuoted(value)}\n`;
    })
    .join('');
}

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

/**
 * Writes the deploy-time settings into the ext filesystem in `image` (not mounted): hostname and
 * /etc/hosts, root's password hash and SSH keys, the interfaces' addresses (NETWORK_FILE always,
 * /etc/network/interfaces when the image uses ifupdown) and the first-boot script.
 */
export async function writeDeploySettings(image: string, settings: DeploySettings): Promise<void> {
  const { hostname } = settings;
  if (!/^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/.test(hostname)) throw new Error(`not a hostname: ${JSON.stringify(hostname)}`);
  const files: Ext4File[] = [
    { path: '/etc/hostname', content: `${hostname}\n`, mode: 0o644 },
    { path: '/etc/hosts', content: withHostsEntry((await readExt4File(image, '/etc/hosts')) ?? '', hostname), mode: 0o644 },
    { path: NETWORK_FILE, content: cumuloNetworkFile(settings.network), mode: 0o644 },
  ];
  if ((await readExt4File(image, IFUPDOWN_FILE)) !== undefined)
    files.push(await replacing(image, { path: IFUPDOWN_FILE, content: ifupdownInterfaces(settings.network), mode: 0o644 }));
  if (settings.rootPasswordHash !== null) {
    const shadow = (await readExt4File(image, '/etc/shadow')) ?? '';
    const file = { path: '/etc/shadow', content: withRootPassword(shadow, settings.rootPasswordHash), mode: 0o600 };
    files.push(await replacing(image, file));
  }
  if (settings.authorizedKeys.length > 0) {
    const keys = settings.authorizedKeys.map((key) => key.trim());
    if (keys.some((key) => key.includes('\n'))) throw new Error('an SSH key is one line');
    files.push({ path: '/root/.ssh/authorized_keys', content: `${keys.join('\n')}\n`, mode: 0o600 });
  }
  if (settings.firstBoot !== undefined) {
    files.push(
      { path: FIRSTBOOT_FILE, content: settings.firstBoot.script, mode: 0o700 },
      { path: FIRSTBOOT_ENV_FILE, content: firstBootEnvFile(settings.firstBoot.env), mode: 0o600 },
    );
  }
  await writeExt4Files(image, files);
}
