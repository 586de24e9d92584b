import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { systemTool } from '../test/helpers/system-tools.ts';
import { median } from './measure.ts';
import { pin, startProcess, stop } from './processes.ts';
import { type Check, fmt } from './targets.ts';

const PASSWORD = 'bench console password';
const TOKEN = `bench-${'c'.repeat(58)}`;
/** Nodes on the list the first page shows: a page of them, as an account in use has. */
const NODES = 25;

/** What shows once the nodes page has its list: the table, or its empty state. */
const LIST_SHOWN = 'table[aria-label="Nodes"], p.muted:text("No nodes yet.")';

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
  const browser = await chromium.launch({ executablePath: systemTool('chromium'), headless: true });
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
    const times: number[] = [];
    let bytes = 0;
    const runs = 12;
    for (let run = -2; run < runs; run++) {
      const context = await browser.newContext({ storageState: state });
      const page = await context.newPage();
      let transferred = 0;
      page.on('response', async (res) => {
        transferred += Number((await res.allHeaders())['content-length'] ?? 0);
      });
      const started = performance.now();
      await page.goto(`${server.baseUrl}/`);
      await page.locator(LIST_SHOWN).first().waitFor();
      const took = performance.now() - started;
      await context.close();
      if (run < 0) continue;
      times.push(took);
      bytes = transferred;
    }
    times.sort((a, b) => a - b);
    const p50 = median(times);
    const worst = times[times.length - 1] ?? 0;
    log(
      `console: first page with its list of ${NODES} nodes in ${fmt(p50)} ms (median of ${runs} fresh profiles), slowest ${fmt(worst)} ms, ${fmt(bytes / 1024)} KB over the wire`,
    );
    checks.push({
      part: 'console',
      subject: 'first page',
      figure: 'p50 to the list',
      value: `${fmt(p50)} ms`,
      target: '< 300 ms',
      met: p50 < 300,
    });
  } finally {
    await browser.close();
    await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
