import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Ext4File, statExt4File } from './ext4-settings.ts';
import { run } from './run.ts';

/** The host keys an OpenSSH server makes for itself (`ssh-keygen -A`). */
const KEY_TYPES = ['rsa', 'ecdsa', 'ed25519'] as const;

/**
 * SSH host keys of their own for a machine whose image has an OpenSSH server and no host keys,
 * made on the host: an emulated guest takes many seconds to make an RSA key at its first boot,
 * and it makes none once these are there. Empty for an image with keys or without OpenSSH, or
 * a host without ssh-keygen (the guest then makes its own).
 */
export async function newSshHostKeys(image: string, hostname: string): Promise<Ext4File[]> {
  if ((await statExt4File(image, '/etc/ssh/sshd_config')) === undefined) return [];
  if ((await statExt4File(image, '/etc/ssh/ssh_host_ed25519_key')) !== undefined) return [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-host-keys-'));
  try {
    await Promise.all(
      KEY_TYPES.map((type) =>
        run('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', `root@${hostname}`, '-f', path.join(dir, type)]),
      ),
    );
    return KEY_TYPES.flatMap((type): Ext4File[] => [
      { path: `/etc/ssh/ssh_host_${type}_key`, content: fs.readFileSync(path.join(dir, type)), mode: 0o600 },
      { path: `/etc/ssh/ssh_host_${type}_key.pub`, content: fs.readFileSync(path.join(dir, `${type}.pub`)), mode: 0o644 },
    ]);
  } catch (error) {
    if ((error as { cause?: NodeJS.ErrnoException }).cause?.code === 'ENOENT') return [];
    throw error;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
