import fs from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Progress } from '../driver.ts';

const BLOCK = 64 * 1024;
const ZEROS = Buffer.alloc(BLOCK);

/**
 * Unpacks a gzip file into `target`, leaving holes where whole 64 KiB blocks are zero: an uploaded
 * disk image is mostly empty, and its file takes only what it holds. It stops with an error as soon
 * as the data passes `maxBytes`, whatever the file claims to hold (a gzip bomb stops there).
 * `onProgress` follows the share of the gzip file read.
 */
export async function gunzipSparse(
  source: string,
  target: string,
  options: { maxBytes: number; onProgress?: Progress | undefined },
): Promise<void> {
  const fd = fs.openSync(target, 'w', 0o600);
  const input = fs.createReadStream(source);
  try {
    let position = 0;
    let pending = Buffer.alloc(0);
    const flush = (block: Buffer) => {
      if (!block.equals(ZEROS.subarray(0, block.length))) fs.writeSync(fd, block, 0, block.length, position);
      position += block.length;
    };
    const size = fs.statSync(source).size;
    for await (const chunk of input.pipe(createGunzip())) {
      if (size > 0) options.onProgress?.(Math.min(1, input.bytesRead / size));
      if (position + pending.length + (chunk as Buffer).length > options.maxBytes) {
        throw new Error(`the image unpacks to more than ${options.maxBytes} bytes, the most it may here`);
      }
      pending = Buffer.concat([pending, chunk as Buffer]);
      let offset = 0;
      for (; offset + BLOCK <= pending.length; offset += BLOCK) flush(pending.subarray(offset, offset + BLOCK));
      pending = pending.subarray(offset);
    }
    flush(pending);
    fs.ftruncateSync(fd, position);
  } finally {
    input.destroy();
    fs.closeSync(fd);
  }
}
