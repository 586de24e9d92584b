import fs from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Context } from '../../context.ts';
import { findPrivateImage } from './image.repository.ts';

/**
 * What an image's data holds: a whole disk (a partition table, MBR or GPT, and its partitions: an
 * upload made from a disk), a bare filesystem (a captured disk, a built image), or neither.
 */
export type ImageLayout = 'whole-disk' | 'filesystem' | 'other';

/** How much of the data tells: the MBR (sector 0), the GPT header (sector 1) and an ext superblock's magic. */
const HEAD_BYTES = 2048;
const SECTOR = 512;
const EXT_MAGIC_OFFSET = 1080;
const EXT_MAGIC = 0xef53;
const MBR_PARTITIONS = 446;

/** An MBR: the boot signature, and four partition entries of which one is in use, each marked active or not. */
function hasMbr(head: Buffer): boolean {
  if (head.length < SECTOR || head[510] !== 0x55 || head[511] !== 0xaa) return false;
  const entries = [0, 1, 2, 3].map((i) => head.subarray(MBR_PARTITIONS + 16 * i, MBR_PARTITIONS + 16 * (i + 1)));
  return entries.every((e) => e[0] === 0x00 || e[0] === 0x80) && entries.some((e) => e[4] !== 0);
}

/** The layout the first bytes of an image's (decompressed) data show. */
export function layoutOf(head: Buffer): ImageLayout {
  if (head.subarray(SECTOR, SECTOR + 8).toString('latin1') === 'EFI PART') return 'whole-disk';
  if (head.length >= EXT_MAGIC_OFFSET + 2 && head.readUInt16LE(EXT_MAGIC_OFFSET) === EXT_MAGIC) return 'filesystem';
  return hasMbr(head) ? 'whole-disk' : 'other';
}

/** The first `bytes` of a gzip file's data; fewer when it is shorter or breaks off. */
async function gunzippedHead(file: string, bytes: number): Promise<Buffer> {
  const source = fs.createReadStream(file, { highWaterMark: 64 * 1024 });
  const gunzip = source.pipe(createGunzip());
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of gunzip) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= bytes) break;
    }
  } catch {
    // Data that does not decompress to its end: its start is what was read.
  } finally {
    gunzip.destroy();
    source.destroy();
  }
  return Buffer.concat(chunks).subarray(0, bytes);
}

/**
 * What a deployable image's data holds. A public image is a built root filesystem; a private one is
 * read from the start of its data (gzip, as uploaded or captured). Data this server does not hold (a
 * capture made with simulated nodes) is `other`.
 */
export async function imageLayout(ctx: Context, imageId: string): Promise<ImageLayout> {
  const row = await findPrivateImage(ctx.db, imageId);
  if (!row) return 'filesystem';
  const file = row.blob_key === null ? null : await ctx.blobs.localPath(row.blob_key);
  return file === null ? 'other' : layoutOf(await gunzippedHead(file, HEAD_BYTES));
}
