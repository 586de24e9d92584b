import { Transform, type TransformCallback, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, type Gunzip } from 'node:zlib';
import { fail } from '../../errors.ts';

const GZIP_MAGIC = [0x1f, 0x8b] as const;
/**
 * Below this much unpacked data the ratio is not checked: a small disk image of mostly free space
 * unpacks to hundreds of times its size, and unpacking a gigabyte takes a second or two.
 */
export const RATIO_CHECKED_FROM_BYTES = 1024 ** 3;

export interface UploadLimits {
  /** The most compressed data taken (413 past it). */
  maxBytes: number;
  /** The most the data may unpack to (400 past it). */
  maxUnpackedBytes: number;
  /** The most times its compressed size the data may unpack to, once past RATIO_CHECKED_FROM_BYTES (400 past it). */
  maxRatio: number;
}

/**
 * Passes upload data through unchanged while checking it on the way: at most `maxBytes`
 * (413 past that), starting with the gzip magic bytes, and a gzip stream that decompresses
 * to its end without error (a truncated or corrupt one is a 400) and to no more than
 * `maxUnpackedBytes` nor `maxRatio` times what it was sent as (a 400 as soon as it passes
 * either). The decompressed data is counted and thrown away; nothing is held beyond the chunk in
 * flight.
 */
export class UploadCheck extends Transform {
  readonly #limits: UploadLimits;
  readonly #gunzip: Gunzip;
  readonly #inflated: Promise<void>;
  #bytes = 0;
  #head: number[] = [];
  #uncompressed = 0;
  #pending: TransformCallback | null = null;
  /** Set once the decompressor has failed; every later step reports it. */
  #failure: Error | null = null;

  constructor(limits: UploadLimits) {
    super();
    this.#limits = limits;
    // Large output chunks: a highly compressed stream is counted in fewer steps.
    this.#gunzip = createGunzip({ chunkSize: 256 * 1024 });
    const discard = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        this.#uncompressed += chunk.length;
        this.#failure ??= this.#overUnpacked();
        done(this.#failure);
      },
    });
    this.#inflated = pipeline(this.#gunzip, discard);
    // A corrupt stream may fail the decompressor without calling back the write in flight.
    this.#inflated.catch((err: Error) => {
      this.#failure ??= notGzip(`it does not decompress (${err.message})`);
      this.#settle(this.#failure);
    });
  }

  /** Why the data unpacked so far is too much, or null. */
  #overUnpacked(): Error | null {
    const { maxUnpackedBytes, maxRatio } = this.#limits;
    if (this.#uncompressed > maxUnpackedBytes) {
      return unpacksTooFar(`to more than the ${formatBytes(maxUnpackedBytes)} allowed`);
    }
    if (this.#uncompressed > RATIO_CHECKED_FROM_BYTES && this.#uncompressed > maxRatio * this.#bytes) {
      return unpacksTooFar(`to more than ${maxRatio} times its compressed size`);
    }
    return null;
  }

  /** Completes the chunk in flight once, with an error or passing it on. */
  #settle(err: Error | null, chunk?: Buffer): void {
    const done = this.#pending;
    this.#pending = null;
    if (!done) return;
    if (err) done(err);
    else done(null, chunk);
  }

  /** Compressed bytes seen so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Decompressed bytes, complete once the stream has ended without error. */
  get uncompressedBytes(): number {
    return this.#uncompressed;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#bytes += chunk.length;
    if (this.#bytes > this.#limits.maxBytes) {
      done(tooLarge(this.#limits.maxBytes));
      return;
    }
    for (let i = 0; this.#head.length < GZIP_MAGIC.length && i < chunk.length; i++) this.#head.push(chunk[i] as number);
    if (this.#head.some((b, i) => b !== GZIP_MAGIC[i])) {
      done(notGzip('it does not start with the gzip signature'));
      return;
    }
    if (this.#failure) {
      done(this.#failure);
      return;
    }
    // Waiting for the decompressor to take the chunk keeps memory flat: a slow gunzip slows the upload.
    this.#pending = done;
    this.#gunzip.write(chunk, (err) => {
      this.#settle(this.#failure ?? (err ? notGzip(`it does not decompress (${err.message})`) : null), chunk);
    });
  }

  override _flush(done: TransformCallback): void {
    if (this.#head.length < GZIP_MAGIC.length) {
      done(notGzip('it is empty or too short'));
      return;
    }
    if (this.#failure) {
      done(this.#failure);
      return;
    }
    this.#gunzip.end();
    this.#inflated.then(
      () => done(),
      (err: Error) => done(this.#failure ?? notGzip(`it does not decompress to its end (${err.message})`)),
    );
  }

  override _destroy(err: Error | null, done: (error?: Error | null) => void): void {
    this.#pending = null;
    this.#gunzip.destroy();
    done(err);
  }
}

export function tooLarge(maxBytes: number) {
  return fail.payloadTooLarge(`Image data is larger than the ${formatBytes(maxBytes)} (compressed) allowed`);
}

function unpacksTooFar(how: string) {
  return fail.badRequest(`Image data is too large once decompressed: it unpacks ${how}`);
}

function notGzip(why: string) {
  return fail.badRequest(`Image data must be a gzip-compressed raw disk image: ${why}`);
}

function formatBytes(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value} ${units[unit]}`;
}
