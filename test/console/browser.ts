import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page, type Request } from 'playwright-core';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { CONSOLE_DIST } from '../../src/http/console.ts';
import { type Dialect, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { systemTool } from '../helpers/system-tools.ts';

export const ADMIN_PASSWORD = 'console test password';
/**
 * The databases the page suites run on. The console reaches the database only through the API, whose
 * every operation is tested on both; the embedded one is enough for the pages (a page draws and
 * behaves the same on either), and console.test.ts works through the console on both. Chromium is
 * the suite's heaviest user of CPU: a second pass of every page cost about 3.5 minutes of a run's
 * process time.
 */
export const PAGE_DIALECTS = ['sqlite'] as const satisfies readonly Dialect[];
/** Where each browser test leaves its screenshots. */
export const SCREENSHOTS = path.resolve('test-artifacts', 'console');

/** The console servers running, whose last log lines (warnings, errors) a failed page test shows. */
const servers = new Set<ServerProcess>();

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
  servers.add(server);
  t.after(async () => {
    servers.delete(server);
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
  /** A full-page screenshot's file; '' on PostgreSQL, where none is taken. */
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
  // Requests the page made that have no answer yet: named when the test fails (a hung request).
  const pending = new Set<Request>();
  page.on('request', (req) => pending.add(req));
  page.on('requestfinished', (req) => pending.delete(req));
  page.on('requestfailed', (req) => {
    pending.delete(req);
    // Cancelled by the page itself (a read of what it is deleting): not a failure anyone sees.
    if (req.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText}`);
  });
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
    // TestContext's `passed` (Node 21.7), which @types/node leaves out.
    if (!(t as TestContext & { readonly passed: boolean }).passed) {
      for (const problem of problems) t.diagnostic(problem);
      for (const req of pending) t.diagnostic(`no answer yet: ${req.method()} ${req.url()}`);
      for (const server of servers) {
        const logged = server
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{'));
        if (logged.length) t.diagnostic(`${server.baseUrl} logged:\n${logged.slice(-20).join('\n')}`);
      }
    }
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
      // As shotBothWidths: pages are shot once, on the embedded database.
      if (prefix.startsWith('postgres')) return '';
      const file = path.join(SCREENSHOTS, `${prefix}-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
  };
}

export async function launch(t: TestContext): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: systemTool('chromium-headless-shell'), headless: true });
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

/** Answers the confirmation dialog titled `title` with its `action` button (the dialog then closes). */
export async function confirmDialog(page: Page, title: RegExp | string, action: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: action, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** Waits for a toast saying `text` (a failure's toast when `kind` is 'failed'). */
export async function toast(page: Page, text: RegExp | string, kind: 'done' | 'failed' = 'done'): Promise<void> {
  try {
    await page.locator(`.toast[data-kind="${kind}"]`, { hasText: text }).first().waitFor();
  } catch (err) {
    const shown = await page
      .locator('.toast')
      .evaluateAll((toasts) => toasts.map((e) => `${e.getAttribute('data-kind')}: ${e.textContent}`));
    throw new Error(`no ${kind} toast saying ${text}; the page shows ${JSON.stringify(shown)}`, { cause: err });
  }
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = fs.readFileSync(path.join(path.dirname(require.resolve('axe-core')), 'axe.min.js'), 'utf8');

/**
 * The page's serious and critical accessibility violations, by axe-core (WCAG 2.1 A and AA rules), as
 * `rule: target` lines. axe runs through the DevTools protocol, which the console's CSP does not govern.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) })))`);
  return (violations as { id: string; impact: string; targets: string[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.targets.slice(0, 3).join(', ')}`);
}

/** Fails the test on any serious or critical violation axe-core finds on the page as it is now. */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  assert.deepEqual(await accessibilityProblems(page), [], `axe-core on ${where}`);
}

/** The two widths every page is shown at in the screenshots: a desktop and a phone. */
export const WIDTHS = [
  { name: '1440', width: 1440, height: 900 },
  { name: '390', width: 390, height: 844 },
] as const;

/**
 * Screenshots of the page as it is now at 1440 and 390 px (`<prefix>-<name>-1440.png`, `-390.png`,
 * under SCREENSHOTS), each also checked by axe-core; the page's own size is put back after.
 */
export async function shotBothWidths(page: Page, prefix: string, name: string): Promise<string[]> {
  // A page draws the same on either database: it is shot and checked once, on the embedded one (the
  // tests' `${dialect}-…` prefix), which keeps the suite's time for the behaviour checked on both.
  if (prefix.startsWith('postgres')) return [];
  const before = page.viewportSize();
  const files: string[] = [];
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const { name: width, ...size } of WIDTHS) {
    await page.setViewportSize(size);
    const file = path.join(SCREENSHOTS, `${prefix}-${name}-${width}.png`);
    await page.screenshot({ path: file, fullPage: true });
    await assertAccessible(page, `${name} at ${width} px`);
    files.push(file);
  }
  if (before) await page.setViewportSize(before);
  return files;
}
