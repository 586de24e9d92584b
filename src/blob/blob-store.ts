import type { Readable } from 'node:stream';

/**
 * Where large binary data (image uploads) lives. Keys are relative paths of lower-case letters,
 * digits, `.`, `_`, `-` and `/`. The filesystem store is the default; an S3-style store can
 * implement the same contract.
 */
export interface BlobStore {
  /**
   * Streams `data` under `key` and resolves with the number of bytes stored. The blob becomes
   * visible only once all data has arrived; if the stream fails (or is destroyed) nothing is left
   * behind under the key or anywhere else, and the promise rejects with the stream's error.
   */
  put(key: string, data: Readable): Promise<{ bytes: number }>;
  /** Removes the blob; a missing one is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Size in bytes, or null when there is no such blob. */
  size(key: string): Promise<number | null>;
  /**
   * Stores the local file `source` under `key` as `put` does: a hard link to it when both are on
   * one filesystem (the source must then not be changed in place), a copy otherwise.
   */
  putFile(key: string, source: string): Promise<{ bytes: number }>;
  /** The blob as a local file, for programs that take a path (QEMU); null when there is no such blob. */
  localPath(key: string): Promise<string | null>;
  /** Removes every blob (an operator's reset), but those under the top-level folder `keep`. */
  clear(options?: { keep?: string }): Promise<void>;
}

const KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/;

/** Throws unless `key` is a well-formed blob key: no absolute path, no empty, dot-led or `..` segment. */
export function checkBlobKey(key: string): void {
  if (!KEY.test(key) || key.length > 512) throw new Error(`invalid blob key: ${key}`);
}
