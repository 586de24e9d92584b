import crypto from 'node:crypto';

/** Source of randomness for generated values; injectable so runs can be made reproducible. */
export interface Random {
  bytes(n: number): Buffer;
}

export const systemRandom: Random = { bytes: (n) => crypto.randomBytes(n) };

export function randomHex(random: Random, bytes: number): string {
  return random.bytes(bytes).toString('hex');
}

export function randomUuid(random: Random): string {
  const b = random.bytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
