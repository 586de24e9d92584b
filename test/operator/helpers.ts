import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import type { ConfigOverrides } from '../../src/config.ts';
import type { Clock } from '../../src/time/clock.ts';
import { buildTestApp, type Dialect, type RequestOptions, type TestApp } from '../helpers/app.ts';
import { CUMULO_BIN } from '../helpers/server-process.ts';

/** The operator's token (CUMULO_ADMIN_TOKEN) of the test apps; the bootstrap token is another. */
export const OPERATOR_TOKEN = 'cumulo-test-operator-token-0123456789';

export interface OperatorApp extends TestApp {
  /** A request to the admin API with the operator's token. */
  admin(method: string, url: string, options?: Omit<RequestOptions, 'token'>): ReturnType<TestApp['request']>;
}

/** A test app with the admin API on. */
export async function operatorApp(
  t: TestContext,
  dialect: Dialect,
  config: ConfigOverrides = {},
  clock?: Clock,
): Promise<OperatorApp> {
  const app = await buildTestApp(t, { dialect, config: { adminToken: OPERATOR_TOKEN, ...config }, ...(clock ? { clock } : {}) });
  return {
    ...app,
    admin: (method, url, options = {}) => app.request(method, url, { ...options, token: OPERATOR_TOKEN }),
  };
}

/** Asserts a 200 and returns the body. */
export async function ok(reply: Promise<{ status: number; body: unknown }>): Promise<
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field in tests
  any
> {
  const res = await reply;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** The environment a `cumulo` process needs to work on a test app's database. */
export function cliEnv(app: TestApp, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CUMULO_DATA_DIR: app.dataDir, LOG_LEVEL: 'warn', ...extra };
  delete env.DATABASE_URL;
  delete env.CUMULO_SEED;
  if (app.databaseUrl) env.DATABASE_URL = app.databaseUrl;
  return env;
}

/** Runs `cumulo <args>` as a process on the app's database; never throws. */
export async function cumulo(
  app: TestApp,
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CUMULO_BIN, ...args],
      { env: cliEnv(app, options.env), maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

export const run = promisify(execFile);

/** GET /admin/snapshot as text (the app's JSON helper would try to parse NDJSON). */
export async function snapshotOf(app: TestApp): Promise<string> {
  const server = app.runtime.app;
  if (!server) throw new Error('no app');
  const res = await server.inject({
    method: 'GET',
    url: '/admin/snapshot',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/x-ndjson/);
  return res.body;
}

/** POST /admin/restore with a snapshot document. */
export async function restoreInto(app: TestApp, document: string, contentType = 'application/x-ndjson') {
  const server = app.runtime.app;
  if (!server) throw new Error('no app');
  const res = await server.inject({
    method: 'POST',
    url: '/admin/restore',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': contentType },
    payload: document,
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}
