import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ServerProcess } from '../helpers/server-process.ts';
import { needs } from '../helpers/system-tools.ts';
import {
  ADMIN_PASSWORD,
  assertAccessible,
  confirmDialog,
  consoleServer,
  launch,
  PAGE_DIALECTS,
  signIn,
  toast,
  watchedPage,
} from './browser.ts';

/** The tokens the console keeps in this browser. */
async function storedTokens(page: Page): Promise<{ access_token: string; refresh_token: string }> {
  const text = await page.evaluate(() => localStorage.getItem('cumulo.tokens'));
  assert.ok(text, 'the console keeps its tokens');
  return JSON.parse(text);
}

/** How many requests for `pathPart` the page makes while `during` runs and `ms` after. */
async function requestsDuring(page: Page, pathPart: string, ms: number, during: () => Promise<unknown> = async () => {}) {
  let count = 0;
  const listener = (req: { url(): string }) => {
    if (req.url().includes(pathPart)) count += 1;
  };
  page.on('request', listener);
  await during();
  await page.waitForTimeout(ms);
  page.off('request', listener);
  return count;
}

/** A script that makes the tab hidden or shown, as the browser does when the user switches tabs. */
function showTab(shown: boolean): string {
  const state = shown ? 'visible' : 'hidden';
  return `(() => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${state}' });
    document.dispatchEvent(new Event('visibilitychange'));
  })()`;
}

const BACKGROUND = 'getComputedStyle(document.documentElement).backgroundColor';

for (const dialect of PAGE_DIALECTS) {
  describe(`the console's frame in Chromium [${dialect}]`, needs('chromium-headless-shell'), () => {
    let server: ServerProcess;
    let browser: Browser;
    const cleanups: (() => unknown)[] = [];
    const suite = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
    before(async () => {
      server = await consoleServer(suite, dialect);
      browser = await launch(suite);
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
    });

    test('its files come compressed; sign-out revokes the tokens on the server, and the next sign-in starts at home', async (t) => {
      const { page } = await watchedPage(t, browser, `${dialect}-shell`);
      const encodings = new Map<string, string>();
      page.on('response', (res) => {
        const url = new URL(res.url());
        if (url.pathname === '/' || url.pathname.startsWith('/assets/'))
          encodings.set(url.pathname, res.headers()['content-encoding'] ?? '');
      });
      await signIn(page, server.baseUrl);
      assert.ok(encodings.size >= 3, `the page, its script and its style: ${[...encodings.keys()]}`);
      for (const [file, encoding] of encodings) assert.equal(encoding, 'br', `${file} is sent with brotli`);

      const navigation = (await page.evaluate(
        "(() => { const e = performance.getEntriesByType('navigation')[0]; return e.domContentLoadedEventEnd - e.startTime; })()",
      )) as number;
      t.diagnostic(`the console's page: DOM ready ${navigation.toFixed(0)} ms after navigation`);

      await page.getByRole('link', { name: 'Events' }).click();
      await page.getByRole('heading', { name: 'Events' }).waitFor();
      const tokens = await storedTokens(page);
      const profile = (token: string) => fetch(`${server.baseUrl}/v4/profile`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal((await profile(tokens.access_token)).status, 200);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      // The revocation is sent as the sign-in page shows.
      for (let i = 0; i < 20 && (await profile(tokens.access_token)).status !== 401; i++) await page.waitForTimeout(100);
      assert.equal((await profile(tokens.access_token)).status, 401, 'the access token ends with the sign-out');
      const refreshed = await fetch(`${server.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: 'cumulo-console',
        }),
      });
      assert.equal(refreshed.status, 400, 'so does the refresh token');
      assert.equal(await page.evaluate(() => localStorage.getItem('cumulo.tokens')), null);

      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('Username').fill('admin');
      await page.keyboard.press('Tab');
      await page.keyboard.type(ADMIN_PASSWORD);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Nodes' }).waitFor();
      assert.equal(new URL(page.url()).hash, '#/nodes', 'home, not the page the last user was on');
    });

    test('opened again signed in, the page asks for its first reads before its script runs, and each only once', async (t) => {
      const { page } = await watchedPage(t, browser, `${dialect}-first-reads`);
      await signIn(page, server.baseUrl);
      const listed = page.getByRole('table', { name: 'Nodes' }).or(page.getByText('No nodes yet.'));
      // The signed-in page's own first reads are made once it has drawn: they are done by then.
      await listed.waitFor();
      await page.waitForTimeout(300);
      const reads: string[] = [];
      let bearer = '';
      page.on('request', (req) => {
        const url = new URL(req.url());
        if (!url.pathname.startsWith('/v4/')) return;
        reads.push(`${req.method()} ${url.pathname}${url.search} ${req.headers()['x-filter'] ?? ''}`.trim());
        bearer = req.headers().authorization ?? bearer;
      });
      await page.reload();
      await listed.waitFor();
      // The events feed's next read comes two seconds on; the ones before it are the first page's.
      await page.waitForTimeout(500);
      assert.deepEqual(
        [...reads].sort(),
        [
          'GET /v4/account/events?page=1&page_size=25 {"+order_by":"id","+order":"desc"}',
          'GET /v4/node/instances?page=1&page_size=25 {"+order_by":"label","+order":"asc"}',
          'GET /v4/profile',
          'GET /v4/regions?page=1&page_size=100',
          'GET /v4/tags?page=1&page_size=100',
        ],
        'each read once: the console took the answers the inline script had asked for',
      );
      assert.equal(await page.evaluate('window.cumuloFirstReads.size'), 0, 'no early read left untaken');

      // Elsewhere than home, only the profile is read early; the page reads the rest itself.
      await page.goto('about:blank');
      reads.length = 0;
      await page.goto(`${server.baseUrl}/#/firewalls`);
      await page.getByRole('heading', { name: 'Firewalls' }).waitFor();
      await page.waitForTimeout(500);
      assert.equal(reads.filter((r) => r === 'GET /v4/profile').length, 1, 'the profile once');
      assert.equal(await page.evaluate('window.cumuloFirstReads.size'), 0);

      // An early read left longer than moments is not taken: a page opened later reads afresh.
      const listRead = /^GET \/v4(\/networking\/firewalls\?\S+) ?(.*)$/.exec(reads.find((r) => r.includes('/firewalls?')) ?? '');
      assert.ok(listRead, `the firewalls page read its list: ${reads.join(', ')}`);
      const [, listPath, listFilter] = listRead;
      await page.evaluate("window.location.hash = '#/nodes'");
      await page.getByRole('heading', { name: 'Nodes' }).waitFor();
      const key = listFilter ? `${listPath} ${listFilter}` : listPath;
      const stale = { data: [{ id: 999999, label: 'stale-firewall' }], page: 1, pages: 1, results: 1 };
      await page.evaluate(`window.cumuloFirstReads.set(${JSON.stringify(key)}, {
        token: ${JSON.stringify(bearer.replace(/^Bearer /, ''))},
        answer: Promise.resolve(new Response(${JSON.stringify(JSON.stringify(stale))}, { headers: { 'content-type': 'application/json' } })),
        sentAt: performance.now() - 60000,
      })`);
      reads.length = 0;
      await page.evaluate("window.location.hash = '#/firewalls'");
      await page.getByRole('heading', { name: 'Firewalls' }).waitFor();
      const firewalls = page.getByText('No firewalls yet.').or(page.getByRole('table', { name: 'Firewalls' }));
      await firewalls.first().waitFor();
      assert.equal(await page.getByText('stale-firewall').count(), 0, 'the stale answer is not shown');
      assert.ok(
        reads.some((r) => r.includes('/firewalls?')),
        'the list is read afresh',
      );
      assert.equal(await page.evaluate('window.cumuloFirstReads.size'), 0);
    });

    test('a destructive action asks first and ends in a toast; an error says so with a Retry; nothing is read in a hidden tab', async (t) => {
      const { page, shot, expectFailure } = await watchedPage(t, browser, `${dialect}-shell`);
      await signIn(page, server.baseUrl);
      await page.getByRole('link', { name: 'Tags' }).click();
      await page.getByRole('textbox', { name: 'New tag' }).fill('frame-test');
      await page.getByRole('button', { name: 'Add tag' }).click();
      await toast(page, 'Tag frame-test created');
      const row = page.getByRole('row', { name: /frame-test/ });
      await row.waitFor();

      await row.getByRole('button', { name: 'Delete tag frame-test' }).click();
      await page.getByRole('dialog', { name: 'Delete tag frame-test?' }).waitFor();
      await shot('confirm');
      await assertAccessible(page, 'the confirmation dialog');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      assert.equal(await row.count(), 1, 'Escape deletes nothing');
      await row.getByRole('button', { name: 'Delete tag frame-test' }).click();
      await confirmDialog(page, 'Delete tag frame-test?', 'Delete');
      await toast(page, 'Tag frame-test deleted');
      await row.waitFor({ state: 'detached' });

      // The API fails once: the page says why and offers Retry, which reads again.
      let failing = true;
      await page.route('**/v4/tags?**', (route) =>
        failing
          ? route.fulfill({ status: 503, contentType: 'application/json', body: '{"errors":[{"reason":"Try again later"}]}' })
          : route.continue(),
      );
      expectFailure('GET', '/v4/tags', 503);
      await page.getByRole('link', { name: 'Events' }).click();
      await page.getByRole('link', { name: 'Tags' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Try again later' });
      await alert.waitFor();
      failing = false;
      await alert.getByRole('button', { name: 'Retry' }).click();
      await page.getByText('No tags yet.').waitFor();

      // Events are read every two seconds while the tab is shown, never while it is hidden.
      await page.getByRole('link', { name: 'Nodes' }).click();
      assert.ok((await requestsDuring(page, '/v4/account/events', 4500)) >= 1, 'read while shown');
      await page.evaluate(showTab(false));
      assert.equal(await requestsDuring(page, '/v4/account/events', 4500), 0, 'nothing read while hidden');
      const shown = await requestsDuring(page, '/v4/account/events', 500, () => page.evaluate(showTab(true)));
      assert.ok(shown >= 1, 'read at once when shown again');
    });

    test('dark mode follows the system setting, and reads as well as the light one', async (t) => {
      const { page, shot } = await watchedPage(t, browser, `${dialect}-shell-dark`);
      await page.emulateMedia({ colorScheme: 'dark' });
      await signIn(page, server.baseUrl);
      const background = await page.evaluate(BACKGROUND);
      assert.notEqual(background, 'rgb(244, 246, 248)', 'not the light background');
      await shot('nodes');
      await assertAccessible(page, 'the nodes page, dark');
      await page.emulateMedia({ colorScheme: 'light' });
      assert.equal(await page.evaluate(BACKGROUND), 'rgb(244, 246, 248)');
      await assertAccessible(page, 'the nodes page, light');
    });
  });
}
