import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { findTool } from '../test/helpers/system-tools.ts';
import { median } from './measure.ts';
import { pin, startProcess, stop } from './processes.ts';
import { type Check, fmt } from './targets.ts';

const PASSWORD = 'bench console password';
const TOKEN = `bench-${'c'.repeat(58)}`;
/** Nodes on the list the first page shows: a page of them, as an account in use has. */
const NODES = 25;

/** What shows once the nodes page has its list: the table, or its empty state. */
const LIST_SHOWN = 'table[aria-label="Nodes"], p.muted:text("No nodes yet.")';

/**
 * Run in the page before its own scripts: the page's clock (0 is when navigation began) at the first
 * frame drawn after the list of nodes is in the document (the bench's account has nodes).
 */
const LIST_PAINTED = `new MutationObserver((_, observer) => {
  if (!document.querySelector('table[aria-label="Nodes"]')) return;
  observer.disconnect();
  requestAnimationFrame(() => { window.listPaintedAt = performance.now(); });
}).observe(document, { childList: true, subtree: true });`;

/** The whole browser, as the console's users run it (the tests use the lighter headless shell). */
function wholeChromium(): string {
  const found = findTool('chromium');
  if (found === undefined) throw new Error('chromium not found: install it with apt-get install -y chromium');
  return found;
}

/** Signs in as the console's user would, once; the browser's storage (the tokens) is what later loads start from. */
async function signedInState(browser: Browser, baseUrl: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${baseUrl}/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill('admin');
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.locator(LIST_SHOWN).first().waitFor();
  const state = await context.storageState();
  await context.close();
  return state;
}

const RUNS = 12;
/** The latency (ms) added to every request for the distant user's figure. */
const FAR_LATENCY_MS = 40;

type SignedIn = Awaited<ReturnType<BrowserContext['storageState']>>;

/** First loads in fresh profiles (two warm-ups left out), each request delayed by `latencyMs`. */
async function firstPageLoads(browser: Browser, baseUrl: string, state: SignedIn, latencyMs: number) {
  const times: number[] = [];
  /** From the driver's side: its navigation and polling for the list add their own time. */
  const driverTimes: number[] = [];
  let bytes = 0;
  for (let run = -2; run < RUNS; run++) {
    const context = await browser.newContext({ storageState: state });
    const page = await context.newPage();
    if (latencyMs > 0) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: latencyMs,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
    }
    await page.addInitScript(LIST_PAINTED);
    // What came over the wire: each answer's headers and its body as sent (compressed), once it ended.
    const sizes: Promise<number>[] = [];
    page.on('requestfinished', (req) => sizes.push(req.sizes().then((size) => size.responseHeadersSize + size.responseBodySize)));
    const started = performance.now();
    await page.goto(`${baseUrl}/`);
    await page.locator(LIST_SHOWN).first().waitFor();
    const seen = performance.now() - started;
    await page.waitForFunction('window.listPaintedAt !== undefined');
    const painted = (await page.evaluate('window.listPaintedAt')) as number;
    const transferred = (await Promise.all(sizes)).reduce((sum, size) => sum + size, 0);
    await context.close();
    if (run < 0) continue;
    times.push(painted);
    driverTimes.push(seen);
    bytes = transferred;
  }
  times.sort((a, b) => a - b);
  return { p50: median(times), worst: times[times.length - 1] ?? 0, driverP50: median(driverTimes), bytes };
}

/**
 * The console's first page, as a signed-in user opens it in a fresh browser profile (nothing cached):
 * from navigation until the nodes list is on screen, and the bytes it took. The server runs as
 * `npm start` does, pinned to `core`, with a page of nodes.
 */
export async function consolePart(
  checks: Check[],
  log: (line?: string) => void,
  options: { core: number; benchCore: number; logFile: string },
) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cumulo-bench-console-'));
  const server = await startProcess(
    {
      CUMULO_DATA_DIR: dataDir,
      CUMULO_BOOTSTRAP_PASSWORD: PASSWORD,
      CUMULO_BOOTSTRAP_TOKEN: TOKEN,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
    },
    { core: options.core, logFile: options.logFile },
  );
  // The browser is the user's machine, not the load generator: it gets every core, as a desktop's would
  // (its processes inherit this one's cores when they start).
  pin(process.pid, `0-${os.cpus().length - 1}`);
  const browser = await chromium.launch({ executablePath: wholeChromium(), headless: true });
  pin(process.pid, options.benchCore);
  try {
    for (let i = 0; i < NODES; i++) {
      const res = await fetch(`${server.baseUrl}/v4/node/instances`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          region: 'us-east',
          type: 'g6-nanode-1',
          label: `bench-${i}`,
          image: 'node/debian12',
          root_pass: 'Bench-root-pass-1',
        }),
      });
      if (!res.ok) throw new Error(`creating a node for the console bench: ${res.status} ${await res.text()}`);
    }
    const state = await signedInState(browser, server.baseUrl);
    const local = await firstPageLoads(browser, server.baseUrl, state, 0);
    log(
      `console: first page with its list of ${NODES} nodes painted ${fmt(local.p50)} ms after navigation began (median of ${RUNS} fresh profiles), slowest ${fmt(local.worst)} ms; seen by the driver after ${fmt(local.driverP50)} ms; ${fmt(local.bytes / 1024)} KB over the wire`,
    );
    checks.push({
      part: 'console',
      subject: 'first page',
      figure: 'p50 to the list',
      value: `${fmt(local.p50)} ms`,
      target: '< 300 ms',
      met: local.p50 < 300,
    });
    // Not a target: what a user across a network waits, where each round trip counts.
    const far = await firstPageLoads(browser, server.baseUrl, state, FAR_LATENCY_MS);
    log(
      `console: the same with ${FAR_LATENCY_MS} ms added to every request's round trip (a distant user): ${fmt(far.p50)} ms, slowest ${fmt(far.worst)} ms`,
    );
  } finally {
    await browser.close();
    await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
