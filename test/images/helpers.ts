import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { Caller } from '../helpers/accounts.ts';
import type { TestApp } from '../helpers/app.ts';
import { runningNode } from '../nodes/helpers.ts';

export { eventsOf } from '../identity/helpers.ts';
export { settle } from '../nodes/helpers.ts';

export const MIB = 1024 * 1024;

/** gzip members of zeros by their size in MiB, made once per process. */
const zeroMembers = new Map<number, Buffer>();

/** `mib` MiB of zeros as gzip members of at most 64 MiB each: gunzip takes them end to end as one stream. */
export function zerosGzip(mib: number): Buffer[] {
  const members: Buffer[] = [];
  for (let left = mib; left > 0; left -= 64) {
    const size = Math.min(64, left);
    if (!zeroMembers.has(size)) zeroMembers.set(size, gzipSync(Buffer.alloc(size * MIB)));
    members.push(zeroMembers.get(size) as Buffer);
  }
  return members;
}

/** A running node of the caller (through the nodes API) and its main disk, the one made from the image. */
export async function nodeWithDisk(app: TestApp, overrides: Record<string, unknown> = {}, token?: string) {
  const node = await runningNode(app, overrides, token);
  const disks = await app.request('GET', `/v4/node/instances/${node.id}/disks`, token ? { token } : {});
  assert.equal(disks.status, 200, JSON.stringify(disks.body));
  const disk = disks.body.data.find((d: { filesystem: string }) => d.filesystem !== 'swap');
  assert.ok(disk, 'the node has a main disk');
  return { node, disk } as {
    node: { id: number; label: string; region: string };
    disk: { id: number; label: string; size: number };
  };
}

/** Gives a restricted user a grant on an entity (node or image). */
export async function grant(
  app: TestApp,
  caller: Caller,
  entityType: 'node' | 'image',
  entityId: number,
  permissions: 'read_only' | 'read_write',
): Promise<void> {
  await app.runtime.ctx.db
    .insertInto('entity_grants')
    .values({ account_id: caller.accountId, user_id: caller.userId, entity_type: entityType, entity_id: entityId, permissions })
    .execute();
}

/** Turns on global grants of a restricted user. */
export async function setGlobalGrants(app: TestApp, caller: Caller, grants: Record<string, boolean>): Promise<void> {
  await app.runtime.ctx.db
    .updateTable('users')
    .set({ global_grants: JSON.stringify(grants) })
    .where('id', '=', caller.userId)
    .execute();
}

/** Every file under the app's blob store, temporary ones included (relative paths). */
export function blobFiles(app: TestApp): string[] {
  const root = path.join(app.dataDir, 'blobs');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/** Waits (a little) for the server to finish cleaning up after a refused or broken upload. */
export async function eventuallyNoBlobs(app: TestApp): Promise<string[]> {
  for (let i = 0; i < 100 && blobFiles(app).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  return blobFiles(app);
}

/** Deterministic bytes that do not compress (a xorshift stream). */
export function noise(bytes: number, seed = 1): Buffer {
  const out = Buffer.alloc(bytes);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < bytes; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out.writeUInt32LE(x >>> 0, Math.min(i, bytes - 4));
  }
  return out;
}

/** A small gzip file made in memory (for tests where the data's size does not matter). */
export function smallGzip(text = 'a raw disk image, more or less\n'.repeat(100)): Buffer {
  return gzipSync(Buffer.from(text));
}

/** Starts the test app's HTTP server on a free port; returns its base URL. */
export async function listen(app: TestApp): Promise<string> {
  const server = app.runtime.app;
  if (!server) throw new Error('no app');
  return server.listen({ port: 0, host: '127.0.0.1' });
}

export interface RawReply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: error envelopes are asserted field by field
  body: any;
}

/**
 * PUTs a body over real HTTP with node:http, which (unlike fetch) reports an early answer from a
 * server that stops reading, as the refusals past the size cap do.
 */
export function rawPut(url: string, body: Buffer | Readable, headers: Record<string, string>): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
      res.on('error', reject);
    });
    // Writing may fail once the server has answered and closed; the answer is what counts.
    req.on('error', (err) => setTimeout(() => reject(err), 200));
    if (Buffer.isBuffer(body)) req.end(body);
    else body.on('error', () => req.destroy()).pipe(req);
  });
}

export function uploadPath(uploadTo: string): string {
  return new URL(uploadTo).pathname;
}
