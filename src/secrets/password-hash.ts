/** Password hashes: salted scrypt, the one way passwords are kept (users' passwords; old root password hashes). */
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  length: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

/**
 * scrypt's cost as log2 N (r = 8, p = 1). 15 is 32 MiB and a few tens of milliseconds a hash; each
 * step down halves both (CUMULO_PASSWORD_HASH_COST).
 */
export const DEFAULT_PASSWORD_HASH_COST = 15;
export const MIN_PASSWORD_HASH_COST = 10;
export const MAX_PASSWORD_HASH_COST = 20;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** What scrypt may allocate for N: it needs 128·N·r bytes; the rest is headroom. */
function maxmem(n: number): number {
  return 256 * n * R;
}

/**
 * `scrypt$N$r$p$salt$key`, salt and key in base64: the parameters travel with the hash, so a hash
 * made at another cost is still checked as it was made.
 */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const n = 2 ** cost;
  const salt = crypto.randomBytes(SALT_LENGTH);
  const key = await scrypt(password, salt, KEY_LENGTH, { N: n, r: R, p: P, maxmem: maxmem(n) });
  return ['scrypt', n, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Hashes for users with no password, by cost, so that checking one costs the same as checking a real one. */
const decoys = new Map<number, Promise<string>>();

/**
 * Whether `password` matches `stored` (a hashPassword result), compared in constant time. With no
 * stored hash (no such user, or one without a password) it still derives a key at `cost` (the one
 * new hashes are made at) and answers false, so the time taken does not tell which.
 */
export async function verifyPassword(password: string, stored: string | null | undefined, cost: number): Promise<boolean> {
  let decoy = decoys.get(cost);
  if (!decoy) {
    decoy = hashPassword(crypto.randomBytes(16).toString('hex'), cost);
    decoys.set(cost, decoy);
  }
  const parts = (stored ?? (await decoy)).split('$');
  const [scheme, n, r, p, saltText, keyText] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt' || !saltText || !keyText) return false;
  const N = Number(n);
  if (!Number.isInteger(Math.log2(N)) || N > 2 ** MAX_PASSWORD_HASH_COST || Number(r) !== R || Number(p) !== P) return false;
  const expected = Buffer.from(keyText, 'base64');
  const key = await scrypt(password, Buffer.from(saltText, 'base64'), expected.length, { N, r: R, p: P, maxmem: maxmem(N) });
  return crypto.timingSafeEqual(key, expected) && stored !== null && stored !== undefined;
}
