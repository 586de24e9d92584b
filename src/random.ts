import crypto from 'node:crypto';

/** Source of randomness for generated values; injectable so runs can be made reproducible. */
export interface Random {
  bytes(n: number): Buffer;
  /**
   * Starts the stream over at `key` (a request, a job); a seeded source then yields the same values
   * for the same key in every run, an unseeded one ignores it. Keys must not repeat within one state.
   */
  reposition(key: string): void;
}

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/**
 * Bytes from the operating system's CSPRNG, drawn 4 KB at a time: a call into it costs about as much
 * for 4 KB as for the 8 bytes of a request id, and one is made for every request. Each caller gets
 * its own copy; no byte is handed out twice.
 */
function systemBytes(n: number): Buffer {
  if (n > POOL_BYTES) return crypto.randomBytes(n);
  if (poolOffset + n > pool.length) {
    pool = crypto.randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + n));
  poolOffset += n;
  return out;
}

export const systemRandom: Random = { bytes: systemBytes, reposition: () => {} };

/**
 * A reproducible stream: SHA-256 in counter mode over (seed, key, block number). Values depend only
 * on the seed, the current key and how many bytes were drawn since it was set.
 */
export class SeededRandom implements Random {
  readonly seed: number;
  #key = '';
  #block = 0;
  #buffer: Buffer = Buffer.alloc(0);

  constructor(seed: number, key = 'start') {
    this.seed = seed;
    this.reposition(key);
  }

  reposition(key: string): void {
    this.#key = key;
    this.#block = 0;
    this.#buffer = Buffer.alloc(0);
  }

  bytes(n: number): Buffer {
    const parts = [this.#buffer];
    let have = this.#buffer.length;
    while (have < n) {
      const block = crypto.createHash('sha256').update(`${this.seed}\0${this.#key}\0${this.#block}`).digest();
      this.#block += 1;
      parts.push(block);
      have += block.length;
    }
    const all = Buffer.concat(parts);
    this.#buffer = all.subarray(n);
    return Buffer.from(all.subarray(0, n));
  }
}

export function randomHex(random: Random, bytes: number): string {
  return random.bytes(bytes).toString('hex');
}

/** A number in [0, 1) from 48 random bits. */
export function randomFraction(random: Random): number {
  return random.bytes(6).readUIntBE(0, 6) / 2 ** 48;
}

export function randomUuid(random: Random): string {
  const b = random.bytes(16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
