import crypto from 'node:crypto';
import { decodeKey, installationKey } from './key-file.ts';

/** The key file made on first start when CUMULO_SECRET_KEY is not set (beside root-pass.key). */
export const SECRET_KEY_FILE = 'secret.key';

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why a sealed value cannot be opened; never carries any part of the secret. */
export class SealedValueError extends Error {}

interface Key {
  id: string;
  key: crypto.KeyObject;
}

/** Eight hex digits naming a key: enough to tell an installation's keys apart, nothing about the key itself. */
function keyIdOf(bytes: Buffer): string {
  return crypto.createHash('sha256').update('cumulo secret key id\0').update(bytes).digest('hex').slice(0, 8);
}

/**
 * Secrets that must be read back (managed credentials, the managed SSH private keys) are kept in the
 * database sealed with AES-256-GCM, so a database file, dump or snapshot holds ciphertext only.
 *
 * A sealed value is the text `v1:<key id>:<iv>:<ciphertext>:<tag>` (the last three base64url, the IV
 * 12 random bytes from the operating system, never the seeded stream). The authenticated data is
 * `v1:<key id>:<purpose>`: the purpose names what the value is and whose (`managed_credentials.password
 * account=7`), so a value moved to another column or account does not open.
 *
 * Keys: CUMULO_SECRET_KEY (64 hex digits or base64 of 32 bytes), else `<data dir>/secrets/secret.key`,
 * made on first start. CUMULO_SECRET_KEY may list several keys separated by commas: the first seals,
 * every one opens what was sealed under it (the key id says which), so a new key can take over while
 * values sealed under the old one still open; each value is sealed again under the new key when it
 * next changes.
 */
export class SecretBox {
  readonly #keys: Map<string, Key>;
  readonly #current: Key;

  constructor(keyBytes: readonly Buffer[]) {
    const keys = keyBytes.map((bytes) => ({ id: keyIdOf(bytes), key: crypto.createSecretKey(bytes) }));
    const current = keys[0];
    if (!current) throw new Error('a secret box needs a key');
    this.#current = current;
    this.#keys = new Map(keys.map((k) => [k.id, k]));
  }

  /** The id of the key new values are sealed under. */
  get keyId(): string {
    return this.#current.id;
  }

  seal(plaintext: string, purpose: string): string {
    const { id, key } = this.#current;
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(`${FORMAT}:${id}:${purpose}`, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, id, iv, body, cipher.getAuthTag()]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join(':');
  }

  open(sealed: string, purpose: string): string {
    const [format, id, iv, body, tag, ...rest] = sealed.split(':');
    if (format !== FORMAT || id === undefined || iv === undefined || body === undefined || tag === undefined || rest.length) {
      throw new SealedValueError(`not a sealed value of format ${FORMAT}`);
    }
    const key = this.#keys.get(id);
    if (!key) {
      throw new SealedValueError(
        `sealed under key ${id}, which this installation does not have (it has ${[...this.#keys.keys()].join(', ')}); set CUMULO_SECRET_KEY to list it`,
      );
    }
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(`${FORMAT}:${id}:${purpose}`, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedValueError(`the value does not open under key ${id}: it was changed, or sealed for another purpose`);
    }
  }
}

/** The installation's secret box: the keys of CUMULO_SECRET_KEY, else the key file (made here on first start). */
export function openSecretBox(config: { dataDir: string; secretKeys?: readonly string[] }): SecretBox {
  if (config.secretKeys?.length) {
    return new SecretBox(
      config.secretKeys.map((text) => {
        const bytes = decodeKey(text);
        if (!bytes) throw new Error('CUMULO_SECRET_KEY holds something that is not a 256-bit key');
        return bytes;
      }),
    );
  }
  return new SecretBox([installationKey(config.dataDir, SECRET_KEY_FILE)]);
}
