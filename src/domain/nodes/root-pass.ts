import crypto from 'node:crypto';
import { encrypt } from 'unixcrypt';
import type { Context } from '../../context.ts';
import { randomHex } from '../../random.ts';
import { installationKey } from '../../secrets/key-file.ts';
import { verifyPassword } from '../../secrets/password-hash.ts';

/**
 * Root passwords of nodes. A node's root password guards a simulated machine, not anything of this
 * service: nothing here ever logs in with it. It is kept only as a hash because people reuse
 * passwords. The hash is HMAC-SHA256 over a random salt and the password, keyed with a secret of the
 * installation (a file in the data dir, next to the blobs every server process of a deployment
 * already shares), so the hashes in a leaked database dump, export or backup cannot be tested
 * against guesses without the key.
 *
 * Cost: ~10 µs of CPU a hash, where the salted scrypt used before (N=1024, r=8) took ~3.5 ms of CPU
 * (6 to 12 ms of wall time on the 2-core benchmark machine) for every node created from an image:
 * at 1 000 creates a second that alone would need more CPU than the machine has. Hashes stored in
 * the older `scrypt$…` form still verify.
 */

const KEY_FILE = 'root-pass.key';
const SALT_BYTES = 16;
const keys = new Map<string, crypto.KeyObject>();

/** The installation's key for these hashes (src/secrets/key-file.ts), as a key object made once. */
function installationKeyObject(dataDir: string): crypto.KeyObject {
  const known = keys.get(dataDir);
  if (known) return known;
  // Importing raw key bytes costs more than the HMAC itself.
  const key = crypto.createSecretKey(installationKey(dataDir, KEY_FILE));
  keys.set(dataDir, key);
  return key;
}

function mac(key: crypto.KeyObject, salt: Buffer, password: string): Buffer {
  return crypto.createHmac('sha256', key).update(salt).update(password, 'utf8').digest();
}

/** `hmac-sha256$<salt>$<mac>` (base64). */
export function hashRootPass(ctx: Pick<Context, 'config'>, password: string): string {
  const salt = crypto.randomBytes(SALT_BYTES);
  const digest = mac(installationKeyObject(ctx.config.dataDir), salt, password);
  return ['hmac-sha256', salt.toString('base64'), digest.toString('base64')].join('$');
}

export async function rootPassMatches(ctx: Pick<Context, 'config'>, password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts[0] === 'hmac-sha256' && parts.length === 3) {
    const expected = Buffer.from(parts[2] ?? '', 'base64');
    const actual = mac(installationKeyObject(ctx.config.dataDir), Buffer.from(parts[1] ?? '', 'base64'), password);
    return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
  }
  return parts[0] === 'scrypt' && verifyPassword(password, stored, ctx.config.passwordHashCost);
}

/**
 * The root password as the node's own /etc/shadow holds it (SHA-512 crypt, which every Linux image
 * reads), for nodes that really run; the salt comes from the service's random stream.
 */
export function guestPasswordHash(ctx: Pick<Context, 'random'>, password: string): string {
  return encrypt(password, `$6$${randomHex(ctx.random, 8)}`);
}
