import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../data-dir.ts';
import { type BlobStore, checkBlobKey } from './blob-store.ts';

/** Partial data is written here, inside the store, so the final rename stays on one filesystem. */
const TEMP_DIR = '.tmp';

/** Blobs as files under one directory (`<dataDir>/blobs`); a key is a relative path under it. */
export class FsBlobStore implements BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  #file(key: string): string {
    checkBlobKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, data: Readable): Promise<{ bytes: number }> {
    const file = this.#file(key);
    const tempDir = path.join(this.root, TEMP_DIR);
    await fs.mkdir(tempDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const temp = path.join(tempDir, `${crypto.randomUUID()}.part`);
    // Opened before any data flows, so a failure can never race the file's creation. The stream
    // owns the handle from here: it flushes it to disk and closes it when done, or on failure.
    const handle = await fs.open(temp, 'wx', PRIVATE_FILE_MODE);
    try {
      const out = handle.createWriteStream({ flush: true });
      await pipeline(data, out);
      await fs.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      await fs.rename(temp, file);
      return { bytes: out.bytesWritten };
    } catch (err) {
      await handle.close().catch(() => {});
      await fs.rm(temp, { force: true });
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.#file(key), { force: true });
  }

  async clear(): Promise<void> {
    await fs.rm(this.root, { recursive: true, force: true });
  }

  async exists(key: string): Promise<boolean> {
    return (await this.size(key)) !== null;
  }

  async size(key: string): Promise<number | null> {
    try {
      const stat = await fs.stat(this.#file(key));
      return stat.isFile() ? stat.size : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }
}
