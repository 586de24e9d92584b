import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../data-dir.ts';
import { type BlobStore, checkBlobKey } from './blob-store.ts';

const execFileAsync = promisify(execFile);

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

  async #tempFile(): Promise<string> {
    const tempDir = path.join(this.root, TEMP_DIR);
    await fs.mkdir(tempDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    return path.join(tempDir, `${crypto.randomUUID()}.part`);
  }

  async #moveInto(key: string, temp: string): Promise<void> {
    const file = this.#file(key);
    for (let attempt = 1; ; attempt += 1) {
      await fs.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      try {
        await fs.rename(temp, file);
        return;
      } catch (err) {
        // A delete may have removed the folder, emptied, between the two: make it again, once.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 1) throw err;
      }
    }
  }

  async put(key: string, data: Readable): Promise<{ bytes: number }> {
    checkBlobKey(key);
    const temp = await this.#tempFile();
    // Opened before any data flows, so a failure can never race the file's creation. The stream
    // owns the handle from here: it flushes it to disk and closes it when done, or on failure.
    const handle = await fs.open(temp, 'wx', PRIVATE_FILE_MODE);
    try {
      const out = handle.createWriteStream({ flush: true });
      await pipeline(data, out);
      await this.#moveInto(key, temp);
      return { bytes: out.bytesWritten };
    } catch (err) {
      await handle.close().catch(() => {});
      await fs.rm(temp, { force: true });
      throw err;
    }
  }

  async putFile(key: string, source: string): Promise<{ bytes: number }> {
    checkBlobKey(key);
    const temp = await this.#tempFile();
    try {
      try {
        await fs.link(source, temp);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        // From another filesystem, the holes of a sparse file (a disk) stay holes: copyFile would
        // write them out whole, a 25 GB copy of a disk holding a few hundred MB.
        await execFileAsync('cp', ['--sparse=always', source, temp]);
        await fs.chmod(temp, PRIVATE_FILE_MODE);
      }
      const { size } = await fs.stat(temp);
      await this.#moveInto(key, temp);
      return { bytes: size };
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    }
  }

  async localPath(key: string): Promise<string | null> {
    return (await this.exists(key)) ? this.#file(key) : null;
  }

  /** Removes the blob, and the folders it leaves empty (a backup's, an image's), up to the store's root. */
  async delete(key: string): Promise<void> {
    const file = this.#file(key);
    await fs.rm(file, { force: true });
    for (let dir = path.dirname(file); dir !== this.root && dir.startsWith(this.root); dir = path.dirname(dir)) {
      try {
        await fs.rmdir(dir);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOTEMPTY' || code === 'EEXIST') return;
        if (code !== 'ENOENT') throw err;
      }
    }
  }

  async clear(options: { keep?: string } = {}): Promise<void> {
    if (options.keep === undefined) {
      await fs.rm(this.root, { recursive: true, force: true });
      return;
    }
    checkBlobKey(options.keep);
    const entries = await fs.readdir(this.root).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    for (const entry of entries.filter((e) => e !== options.keep))
      await fs.rm(path.join(this.root, entry), { recursive: true, force: true });
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
