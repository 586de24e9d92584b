/** Password hashes: salted scrypt, the one way passwords are kept (users' passwords; old root password hashes). */
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  length: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/** scrypt's cost: N = 2^15, r = 8, p = 1 (32 MiB and a few tens of milliseconds a hash). */
const COST = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 2 ** 20 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** `scrypt$N$r$p$salt$key`, salt and key in base64: the parameters travel with the hash, so they can change. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(SALT_LENGTH);
  const key = await scrypt(password, salt, KEY_LENGTH, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** A hash for users with no password, so that checking one costs the same as checking a real one. */
let decoy: Promise<string> | null = null;

/**
 * Whether `password` matches `stored` (a hashPassword result), compared in constant time. With no
 * stored hash (no such user, or one without a password) it still derives a key and answers false, so
 * the time taken does not tell which.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  decoy ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  const parts = (stored ?? (await decoy)).split('$');
  const [scheme, n, r, p, saltText, keyText] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt' || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, 'base64');
  const key = await scrypt(password, Buffer.from(saltText, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: COST.maxmem,
  });
  return crypto.timingSafeEqual(key, expected) && stored !== null && stored !== undefined;
}
