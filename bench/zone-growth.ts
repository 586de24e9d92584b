import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchSchema } from './postgres.ts';
import { procStatusMb, rssMb, startProcess, stop } from './processes.ts';

/**
 * One zone grown record by record through the API, as a tenant would: `cumulo serve` (with its worker
 * and `npm start`'s V8 setting) on a fresh embedded database, a domain, then ZONE_RECORDS (default
 * 6 000) A records one POST at a time. Every ZONE_STEP (default 500) records it prints the server's
 * resident memory (now and peak) and the mean time of a record change over the step, then waits for
 * the zone file to show the last record and says how long that took. With ZONE_DATABASE_URL, on
 * PostgreSQL (in a fresh schema, dropped afterwards). Other CUMULO_* settings pass through to the server
 * (CUMULO_DNS_RENDER_DELAY_MS=0 renders after every change).
 *
 *   node bench/zone-growth.ts
 *   ZONE_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/zone-growth.ts
 */

const total = Number(process.env.ZONE_RECORDS ?? 6000);
const step = Number(process.env.ZONE_STEP ?? 500);
const token = 'zone-growth-0123456789abcdef0123456789';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-zone-growth-'));
const pgUrl = process.env.ZONE_DATABASE_URL;
const schema = pgUrl ? await benchSchema(pgUrl) : undefined;
if (schema && 'unavailable' in schema) throw new Error(`PostgreSQL: ${schema.unavailable}`);
const server = await startProcess(
  {
    CUMULO_DATA_DIR: dir,
    CUMULO_BOOTSTRAP_TOKEN: token,
    NODE_OPTIONS: '--max-semi-space-size=16',
    LOG_LEVEL: 'warn',
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  },
  { logFile: path.join(dir, 'server.log') },
);
const pid = server.child.pid;

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${server.baseUrl}/v4${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

try {
  const domain = await api('POST', '/domains', { domain: 'growth.example', type: 'master', soa_email: 'admin@growth.example' });
  const id = domain.json.id as number;
  console.log(`start: RSS ${rssMb(pid)?.toFixed(0)} MB`);
  console.log('records | RSS MB | peak MB | ms a record change (mean over the step)');
  let from = performance.now();
  for (let i = 1; i <= total; i++) {
    const res = await api('POST', `/domains/${id}/records`, {
      type: 'A',
      name: `host${i}`,
      target: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    });
    if (res.status !== 200) throw new Error(`record ${i}: ${res.status} ${JSON.stringify(res.json)}`);
    if (i % step === 0) {
      const ms = (performance.now() - from) / step;
      console.log(`${i} | ${rssMb(pid)?.toFixed(0)} | ${procStatusMb(pid, 'VmHWM')?.toFixed(0)} | ${ms.toFixed(1)}`);
      from = performance.now();
    }
  }
  const waited = performance.now();
  // ZONE_WAIT=0: with renders held back (a long CUMULO_DNS_RENDER_DELAY_MS), the growth without them.
  for (; process.env.ZONE_WAIT !== '0'; ) {
    const file = await api('GET', `/domains/${id}/zone-file`);
    const lines = file.json.zone_file as string[];
    if (lines.some((l) => l.startsWith(`host${total}.`))) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(
    `zone file current ${((performance.now() - waited) / 1000).toFixed(1)} s after the last change; RSS ${rssMb(pid)?.toFixed(0)} MB, peak ${procStatusMb(pid, 'VmHWM')?.toFixed(0)} MB`,
  );
} finally {
  await stop(server);
  await schema?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
}
