import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import pg from 'pg';
import { type Logger, pino } from 'pino';
import type { ComputeDriver } from '../../src/compute/driver.ts';
import { type ConfigOverrides, loadConfig } from '../../src/config.ts';
import type { JobHandler } from '../../src/jobs/handler.ts';
import { randomHex, systemRandom } from '../../src/random.ts';
import { type Runtime, startRuntime } from '../../src/runtime.ts';
import type { Clock } from '../../src/time/clock.ts';
import { freshPgDatabase } from './pg-databases.ts';
import { TEST_PASSWORD_HASH_COST } from './server-process.ts';

export const DIALECTS = ['sqlite', 'postgres'] as const;
export type Dialect = (typeof DIALECTS)[number];

/**
 * Tests commit without waiting for the disk (synchronous_commit off): a commit is as durable as the
 * PostgreSQL server process, which a test never crashes, and every schema made and migrated for a
 * test costs a third of the time.
 */
export const PG_URL =
  process.env.CUMULO_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test?options=-c%20synchronous_commit%3Doff';
export const ADMIN_TOKEN = 'cumulo-test-admin-token-0123456789abcdef';
/** What a test that connects to its own servers on loopback sets: the default egress policy refuses loopback. */
export const LOOPBACK_EGRESS: ConfigOverrides = { egressAllow: ['127.0.0.0/8', '::1/128'] };

export interface TestAppOptions {
  dialect: Dialect;
  config?: ConfigOverrides;
  clock?: Clock;
  jobHandlers?: readonly JobHandler[];
  /** Where the app logs (silent unless given). */
  logger?: Logger;
  /** What runs nodes; simulated nodes unless given. */
  compute?: ComputeDriver;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field in tests
  body: any;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestApp {
  runtime: Runtime;
  dialect: Dialect;
  dataDir: string;
  /** PostgreSQL only: the URL of this app's own database. */
  databaseUrl: string | undefined;
  request(method: string, url: string, options?: RequestOptions): Promise<Reply>;
}

/** Creates a fresh PostgreSQL schema; dropped when the test ends. */
export async function freshPgSchema(t: TestContext): Promise<string> {
  const schema = `t_${randomHex(systemRandom, 8)}`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  t.after(async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      // A process still writing to the schema can deadlock with the drop (40P01): the drop goes again.
      for (let attempt = 1; ; attempt += 1) {
        try {
          await c.query(`drop schema if exists ${schema} cascade`);
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
        }
      }
    } finally {
      // An open client would keep the test process alive.
      await c.end();
    }
  });
  return schema;
}

export function tempDir(t: TestContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A real app on a fresh database (SQLite file or PostgreSQL schema), closed when the test ends. */
export async function buildTestApp(t: TestContext, options: TestAppOptions): Promise<TestApp> {
  const dataDir = tempDir(t);
  const database = options.dialect === 'postgres' ? await freshPgDatabase(PG_URL) : undefined;
  const overrides: ConfigOverrides = {
    dataDir,
    bootstrapToken: ADMIN_TOKEN,
    logLevel: 'silent',
    inProcessWorker: false,
    timeScale: 0.001,
    // Rendered as soon as the worker runs, as tests that drive it expect; zone-render.test.ts sets one.
    dnsRenderDelayMs: 0,
    passwordHashCost: TEST_PASSWORD_HASH_COST,
  };
  if (database) overrides.databaseUrl = database.url;
  const config = loadConfig({}, { ...overrides, ...options.config });
  const runtime = await startRuntime(config, {
    role: 'serve',
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.jobHandlers ? { jobHandlers: options.jobHandlers } : {}),
    ...(options.compute ? { compute: options.compute } : {}),
  });
  t.after(() => runtime.close());
  // After the runtime's close: nothing uses the database any more.
  if (database) t.after(database.release);
  const app = runtime.app;
  if (!app) throw new Error('no app');
  return {
    runtime,
    dialect: options.dialect,
    dataDir,
    databaseUrl: database?.url,
    async request(method, url, opts = {}) {
      const token = opts.token === undefined ? ADMIN_TOKEN : opts.token;
      const headers: Record<string, string> = { ...opts.headers };
      if (token !== null) headers.authorization = `Bearer ${token}`;
      const res = await app.inject({
        method: method as 'GET',
        url,
        headers,
        ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
      });
      const type = String(res.headers['content-type'] ?? '');
      return {
        status: res.statusCode,
        headers: res.headers,
        body: type.includes('json') && res.body ? JSON.parse(res.body) : res.body,
      };
    },
  };
}
