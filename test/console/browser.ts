import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { CONSOLE_DIST } from '../../src/http/console.ts';
import { type Dialect, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { systemTool } from '../helpers/system-tools.ts';

export const ADMIN_PASSWORD = 'console test password';
/** Where each browser test leaves its screenshots. */
export const SCREENSHOTS = path.resolve('test-artifacts', 'console');

/** `cumulo serve` on a fresh database, with the console built by `npm install`, operations quick. */
export async function consoleServer(t: TestContext, dialect: Dialect): Promise<ServerProcess> {
  assert.ok(fs.existsSync(path.join(CONSOLE_DIST, 'index.html')), 'the console is built (npm install, or npm run build:console)');
  const env: Record<string, string> = {
    CUMULO_DATA_DIR: tempDir(t),
    CUMULO_BOOTSTRAP_PASSWORD: ADMIN_PASSWORD,
    CUMULO_BOOTSTRAP_TOKEN: '',
    CUMULO_TIME_SCALE: '0.1',
    DATABASE_URL: dialect === 'postgres' ? urlWithSchema(PG_URL, await freshPgSchema(t)) : '',
  };
  const server = await startServerProcess(env);
  t.after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  return server;
}

export interface Watched {
  page: Page;
  context: BrowserContext;
  /** Lets one failing request through the watch: a test that sends bad input on purpose says which. */
  expectFailure(method: string, pathPart: string, status: number): void;
  shot(name: string): Promise<string>;
}

/**
 * A page whose console errors, uncaught exceptions and failed requests (network errors, HTTP 4xx and
 * 5xx) fail the test, unless the test announced that very request.
 */
export async function watchedPage(
  t: TestContext,
  browser: Browser,
  prefix: string,
  viewport = { width: 1280, height: 860 },
): Promise<Watched> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  const expected: { method: string; pathPart: string; status: number }[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText}`));
  page.on('response', (res) => {
    if (res.status() < 400) return;
    const url = new URL(res.url());
    const at = expected.findIndex(
      (e) => e.method === res.request().method() && url.pathname.includes(e.pathPart) && e.status === res.status(),
    );
    if (at >= 0) {
      expected.splice(at, 1);
      // Chromium reports an HTTP error answer on the console too: that line is the expected one.
      consoleAllowance += 1;
      return;
    }
    problems.push(`HTTP ${res.status()}: ${res.request().method()} ${res.url()}`);
  });
  let consoleAllowance = 0;
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    if (consoleAllowance > 0 && msg.text().startsWith('Failed to load resource')) {
      consoleAllowance -= 1;
      return;
    }
    problems.push(`console error: ${msg.text()}`);
  });
  t.after(async () => {
    await context.close();
    assert.deepEqual(problems, [], 'no console error and no failed request');
    assert.deepEqual(expected, [], 'every announced failure happened');
  });
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    page,
    context,
    expectFailure: (method, pathPart, status) => expected.push({ method, pathPart, status }),
    async shot(name) {
      const file = path.join(SCREENSHOTS, `${prefix}-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
  };
}

export async function launch(t: TestContext): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: systemTool('chromium'), headless: true });
  t.after(() => browser.close());
  return browser;
}

/** Signs in as a person would: the console's button, then the sign-in page, typed with the keyboard. */
export async function signIn(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill('admin');
  await page.keyboard.press('Tab');
  await page.keyboard.type(ADMIN_PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Nodes' }).waitFor();
}
