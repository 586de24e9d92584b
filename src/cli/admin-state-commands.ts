import fs from 'node:fs';
import readline from 'node:readline';
import { listComputeHosts } from '../admin/compute-hosts.service.ts';
import { getInfo } from '../admin/info.service.ts';
import { resetAll } from '../admin/reset.service.ts';
import { restoreSnapshot } from '../admin/restore.service.ts';
import { streamWriter, writeSnapshot } from '../admin/snapshot.service.ts';
import type { Context } from '../context.ts';
import type { Command } from './main.ts';
import { text, tool, type Values } from './tool.ts';

/**
 * `cumulo admin ...` works on the database directly, through the services behind the admin API, so
 * it needs no running server (a CI step, a data dir restored before start-up). What a running server
 * keeps in memory (clock offset, transitions, faults) it reads back from the database within a second.
 * Each command prints what the matching admin endpoint answers.
 */
export const json = (body: unknown) => `${JSON.stringify(body, null, 2)}\n`;

export async function runAdminInfo(ctx: Context): Promise<string> {
  return json(await getInfo(ctx, null));
}

export async function runAdminReset(ctx: Context): Promise<string> {
  return json(await resetAll(ctx));
}

/** Streams the snapshot to `out` (stdout), minding its back-pressure. */
export async function runAdminSnapshot(ctx: Context, _values: Values, out: NodeJS.WritableStream = process.stdout) {
  await writeSnapshot(ctx, streamWriter(out));
  return '';
}

export async function runAdminRestore(ctx: Context, values: Values, input: NodeJS.ReadableStream = process.stdin) {
  const file = text(values, 'file');
  const source = file ? fs.createReadStream(file) : input;
  return json(await restoreSnapshot(ctx, readline.createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY })));
}

export const adminInfo: Command = {
  summary: 'Version, database, counts, job queue, faults and transitions (JSON)',
  usage: 'admin info',
  options: {},
  run: tool(runAdminInfo),
};

export const adminHosts: Command = {
  summary: 'The compute agents with their regions, memory, disk, machines and liveness (JSON)',
  usage: 'admin hosts',
  options: {},
  run: tool(async (ctx) => json(await listComputeHosts(ctx))),
};

export const adminReset: Command = {
  summary: 'All state back to a fresh install (bootstrap user and token made again)',
  usage: 'admin reset',
  options: {},
  run: tool(runAdminReset),
};

export const adminSnapshot: Command = {
  summary: 'Write all state to stdout as one NDJSON snapshot',
  usage: 'admin snapshot > snapshot.ndjson',
  options: {},
  run: tool(runAdminSnapshot),
};

export const adminRestore: Command = {
  summary: 'Replace all state with a snapshot read from stdin (or --file)',
  usage: 'admin restore < snapshot.ndjson',
  options: { file: { type: 'string', description: 'read the snapshot from this file instead of stdin' } },
  run: tool((ctx, values) => runAdminRestore(ctx, values)),
};
