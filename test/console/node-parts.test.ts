import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { backupWindowAwayFromNow } from '../helpers/backup-window.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { needs } from '../helpers/system-tools.ts';
import {
  assertAccessible,
  confirmDialog,
  consoleServer,
  launch,
  PAGE_DIALECTS,
  SCREENSHOTS,
  shotBothWidths,
  signIn,
  toast,
  watchedPage,
} from './browser.ts';

const LIVE = { timeout: 30_000 };

/** Calls the API as the user signed in on `page`, with the token the console keeps. */
async function apiAs<T>(page: Page, baseUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const text = await page.evaluate(() => localStorage.getItem('cumulo.tokens'));
  assert.ok(text, 'the console keeps its tokens');
  const { access_token } = JSON.parse(text) as { access_token: string };
  const res = await fetch(`${baseUrl}/v4${path}`, {
    method,
    headers: { authorization: `Bearer ${access_token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = (await res.json()) as T;
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Waits until no operation on the node is under way (a disk's job ends a little after the disk is ready). */
async function settled(page: Page, baseUrl: string, nodeId: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const events = await apiAs<{ data: { status: string; entity: { id: number; type: string } | null }[] }>(
      page,
      baseUrl,
      'GET',
      '/account/events?page_size=50',
    );
    const busy = events.data.some(
      (e) => e.entity?.type === 'node' && e.entity.id === nodeId && (e.status === 'scheduled' || e.status === 'started'),
    );
    if (!busy) return;
    await page.waitForTimeout(200);
  }
  assert.fail(`node ${nodeId} stays busy`);
}

/** The status badge in the node page's heading once it reads `status`. */
function headStatus(page: Page, status: string) {
  return page.locator('.page-head .status', { hasText: new RegExp(`^${status}$`) }).waitFor(LIVE);
}

/** A day of made-up five-minute points, as GET /node/instances/{id}/stats answers them. */
function fakeStats() {
  const now = Date.now();
  const series = (scale: number) =>
    Array.from({ length: 288 }, (_, i) => [now - (288 - i) * 300_000, Math.round(scale * (1.2 + Math.sin(i / 20)) * 100) / 100]);
  const traffic = (scale: number) => ({
    in: series(scale),
    out: series(scale / 2),
    private_in: series(scale / 10),
    private_out: [],
  });
  return {
    title: 'fake',
    data: { cpu: series(8), io: { io: series(40), swap: series(1) }, netv4: traffic(2e6), netv6: traffic(1e5) },
  };
}

for (const dialect of PAGE_DIALECTS) {
  describe(`a node's parts in the console [${dialect}]`, needs('chromium-headless-shell'), () => {
    let server: ServerProcess;
    let browser: Browser;
    const cleanups: (() => unknown)[] = [];
    const suite = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
    // The nodes the tests share: one whose parts they change, one a backup is restored to.
    let nodeId = 0;
    let otherId = 0;
    before(async () => {
      server = await consoleServer(suite, dialect);
      browser = await launch(suite);
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
    });

    test('disks: add one from an image and a blank one, rename, resize, delete; configs: add, edit, boot into, delete', async (t) => {
      const { page, expectFailure } = await watchedPage(t, browser, `${dialect}-node-parts`);
      await signIn(page, server.baseUrl);
      const base = server.baseUrl;
      const node = await apiAs<{ id: number }>(page, base, 'POST', '/node/instances', {
        label: 'parts-1',
        region: 'us-east',
        type: 'g6-nanode-1',
      });
      nodeId = node.id;
      otherId = (
        await apiAs<{ id: number }>(page, base, 'POST', '/node/instances', {
          label: 'parts-2',
          region: 'us-east',
          type: 'g6-nanode-1',
        })
      ).id;
      await page.goto(`${base}/#/nodes/${nodeId}`);
      await page.getByRole('heading', { name: 'parts-1' }).waitFor();
      await headStatus(page, 'offline');
      await page
        .getByRole('region', { name: 'Console' })
        .getByText('The console opens while the node runs; it is offline.')
        .waitFor();
      const disks = page.getByRole('region', { name: 'Disks' });
      await disks.getByText('No disks.').waitFor();
      await disks.getByText('0 MB of 25600 MB used; 25600 MB free.').waitFor();

      // More than the plan leaves: refused at the size field.
      const add = page.getByRole('form', { name: 'Add a disk' });
      await add.getByLabel('Disk label').fill('system');
      await add.getByLabel('Size (MB)', { exact: true }).fill('30000');
      await add.getByLabel('Source image').selectOption({ label: 'Debian 12' });
      await add.getByLabel('Root password for the disk').fill('Parts-root-pass-1');
      expectFailure('POST', `/node/instances/${nodeId}/disks`, 400);
      await add.getByRole('button', { name: 'Add disk' }).click();
      await add.locator('.field-error[data-field="size"]', { hasText: /free/ }).waitFor();
      await add.getByLabel('Size (MB)', { exact: true }).fill('4000');
      await add.getByRole('button', { name: 'Add disk' }).click();
      await toast(page, 'Disk system added');
      const diskTable = page.getByRole('table', { name: 'Disks' });
      await diskTable
        .getByRole('row', { name: /system.*4000.*ext4/ })
        .getByText('ready', { exact: true })
        .waitFor(LIVE);
      await settled(page, base, nodeId);

      await add.getByLabel('Disk label').fill('scratch');
      await add.getByLabel('Size (MB)', { exact: true }).fill('1000');
      await add.getByLabel('Filesystem').selectOption('ext3');
      await add.getByRole('button', { name: 'Add disk' }).click();
      await toast(page, 'Disk scratch added');
      await diskTable
        .getByRole('row', { name: /scratch.*1000.*ext3/ })
        .getByText('ready', { exact: true })
        .waitFor(LIVE);
      await settled(page, base, nodeId);
      await disks.getByText('5000 MB of 25600 MB used; 20600 MB free.').waitFor();

      await diskTable.getByRole('button', { name: 'Edit disk scratch' }).click();
      const rename = page.getByRole('form', { name: 'Rename disk scratch' });
      await rename.getByLabel('New label').fill('scratch-2');
      await rename.getByRole('button', { name: 'Rename' }).click();
      await toast(page, 'Disk renamed to scratch-2');
      await diskTable.getByRole('cell', { name: 'scratch-2', exact: true }).waitFor();
      const resize = page.getByRole('form', { name: 'Resize disk scratch-2' });
      assert.equal(await resize.getByLabel('New size (MB)').getAttribute('max'), '21600', 'up to what the plan leaves');
      await resize.getByLabel('New size (MB)').fill('2000');
      await resize.getByRole('button', { name: 'Resize' }).click();
      await toast(page, 'Disk scratch-2 resizing to 2000 MB');
      await diskTable
        .getByRole('row', { name: /scratch-2.*2000/ })
        .getByText('ready', { exact: true })
        .waitFor(LIVE);
      await settled(page, base, nodeId);

      // The configs' devices offer the disks the disks part shows, however late the configs' own read
      // answers: the configs are held while scratch-2 goes, until the config form has been opened.
      const configReads = (url: URL) => url.pathname === `/v4/node/instances/${nodeId}/configs`;
      let releaseConfigs = () => {};
      const configsHeld = new Promise<void>((resolve) => {
        releaseConfigs = resolve;
      });
      await page.route(configReads, async (route) => {
        await configsHeld;
        await route.continue();
      });
      await diskTable.getByRole('button', { name: 'Delete disk scratch-2' }).click();
      await confirmDialog(page, 'Delete disk scratch-2?', 'Delete');
      await toast(page, 'Disk scratch-2 deleted');
      await diskTable.getByRole('cell', { name: 'scratch-2', exact: true }).waitFor({ state: 'detached', ...LIVE });

      // A config with the system disk, a chosen kernel, a memory limit and a helper off.
      const configs = page.getByRole('region', { name: 'Configs' });
      await configs.getByRole('button', { name: 'Add a config' }).click();
      const form = page.getByRole('form', { name: 'Add a config' });
      assert.deepEqual(await form.getByLabel('/dev/sdb').locator('option').allTextContents(), ['None', 'system']);
      assert.equal(await form.getByLabel('/dev/sdb').inputValue(), '', 'no second disk to put there');
      // The route stays, passing every read on from now on (unrouting would race the held ones).
      releaseConfigs();
      await form.getByLabel('Config label').fill('main');
      // The kernels come from their own read: the list is complete once the one chosen below is there.
      await form.getByLabel('Kernel').locator('option[value="node/latest-64bit"]').waitFor({ state: 'attached' });
      const kernels = await form.getByLabel('Kernel').locator('option').allTextContents();
      assert.ok(kernels.length > 2, `kernels offered: ${kernels}`);
      await form.getByLabel('Kernel').selectOption('node/latest-64bit');
      await form.getByLabel('/dev/sda').selectOption({ label: 'system' });
      await form.getByLabel('Memory limit (MB)').fill('512');
      await form.getByLabel('Run level').selectOption('single');
      await form.getByLabel('Auto-configure networking').uncheck();
      await form.getByRole('button', { name: 'Add config' }).click();
      await toast(page, 'Config main added');
      const configTable = page.getByRole('table', { name: 'Configs' });
      await configTable.getByRole('row', { name: /main.*sda: system.*\/dev\/sda.*512 MB/ }).waitFor();
      const [made] = (await apiAs<{ data: Record<string, unknown>[] }>(page, base, 'GET', `/node/instances/${nodeId}/configs`))
        .data;
      assert.equal(made?.run_level, 'single');
      assert.equal((made?.helpers as Record<string, boolean> | undefined)?.network, false);

      await configTable.getByRole('button', { name: 'Edit config main' }).click();
      const edit = page.getByRole('form', { name: 'Edit config main' });
      assert.equal(await edit.getByLabel('Memory limit (MB)').inputValue(), '512', 'the form holds the config');
      await edit.getByLabel('Config label').fill('main-2');
      await edit.getByLabel('Memory limit (MB)').fill('0');
      await edit.getByLabel('Virtualization mode').selectOption('fullvirt');
      await edit.getByRole('button', { name: 'Save config' }).click();
      await toast(page, 'Config main-2 saved');
      await configTable.getByRole('row', { name: /main-2.*none/ }).waitFor();
      const [saved] = (await apiAs<{ data: Record<string, unknown>[] }>(page, base, 'GET', `/node/instances/${nodeId}/configs`))
        .data;
      assert.equal(saved?.virt_mode, 'fullvirt');

      // Offline: boot into it; running: reboot into it, asked first.
      await configTable.getByRole('button', { name: 'Boot into main-2' }).click();
      await toast(page, 'Booting into main-2');
      await headStatus(page, 'running');
      await configTable.getByRole('button', { name: 'Reboot into main-2' }).click();
      await confirmDialog(page, 'Reboot parts-1 into main-2?', 'Reboot');
      await toast(page, 'Rebooting into main-2');
      await settled(page, base, nodeId);
      await headStatus(page, 'running');

      await configs.getByRole('button', { name: 'Add a config' }).click();
      await form.getByLabel('Config label').fill('spare');
      await form.getByRole('button', { name: 'Add config' }).click();
      await toast(page, 'Config spare added');
      await configTable.getByRole('button', { name: 'Delete config spare' }).click();
      await confirmDialog(page, 'Delete config spare?', 'Delete');
      await toast(page, 'Config spare deleted');
      await configTable.getByRole('cell', { name: 'spare', exact: true }).waitFor({ state: 'detached' });
      await shotBothWidths(page, `${dialect}-node-parts`, 'disks-configs');
    });

    test('backups: enable, snapshot, restore to another node (overwriting), cancel', async (t) => {
      const { page } = await watchedPage(t, browser, `${dialect}-node-parts`);
      await signIn(page, server.baseUrl);
      await apiAs(page, server.baseUrl, 'PUT', `/node/instances/${nodeId}`, {
        backups: { schedule: { window: backupWindowAwayFromNow() } },
      });
      await page.goto(`${server.baseUrl}/#/nodes/${nodeId}`);
      const backups = page.getByRole('region', { name: 'Backups' });
      await backups.getByText('The backup service is off.').waitFor();
      assert.equal(await backups.getByRole('form', { name: 'Take a snapshot' }).count(), 0, 'no snapshot while it is off');
      await backups.getByRole('button', { name: 'Enable backups' }).click();
      await toast(page, 'Backups enabled');
      await backups.getByText(/The backup service is on/).waitFor();

      const snap = backups.getByRole('form', { name: 'Take a snapshot' });
      await snap.getByLabel('Snapshot label').fill('before-change');
      await snap.getByRole('button', { name: 'Take snapshot' }).click();
      await toast(page, 'Snapshot before-change started');
      const table = page.getByRole('table', { name: 'Backups' });
      await table.getByRole('row', { name: /Snapshot.*before-change.*successful/ }).waitFor(LIVE);
      const row = await table.getByRole('row', { name: /before-change/ }).textContent();
      assert.match(row ?? '', /system \(4000 MB\)/, 'the backup lists its disks');
      assert.match(row ?? '', /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/, 'and its times');

      await table.getByRole('button', { name: 'Restore before-change' }).click();
      const restore = page.getByRole('form', { name: 'Restore before-change' });
      await restore.getByLabel('Restore to node').selectOption({ label: 'parts-2' });
      await restore.getByLabel('Replace its disks and configs').check();
      await restore.getByRole('button', { name: 'Restore', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Restore before-change to parts-2?' });
      await dialog.getByText(/Every disk and config of parts-2 is deleted first/).waitFor();
      await confirmDialog(page, 'Restore before-change to parts-2?', 'Restore');
      await toast(page, 'Restoring before-change to parts-2');
      await page.goto(`${server.baseUrl}/#/nodes/${otherId}`);
      await page.getByRole('heading', { name: 'parts-2' }).waitFor();
      await page
        .getByRole('table', { name: 'Disks' })
        .getByRole('row', { name: /system.*4000/ })
        .waitFor(LIVE);
      await page.getByRole('table', { name: 'Configs' }).getByRole('cell', { name: 'main-2', exact: true }).waitFor(LIVE);

      await page.goto(`${server.baseUrl}/#/nodes/${nodeId}`);
      await table.getByRole('row', { name: /before-change/ }).waitFor();
      await page
        .getByRole('table', { name: 'Disks' })
        .getByRole('row', { name: /system/ })
        .getByText('ready', { exact: true })
        .waitFor();
      await shotBothWidths(page, `${dialect}-node-parts`, 'backups');
      await backups.getByRole('button', { name: 'Cancel backups' }).click();
      await page
        .getByRole('dialog', { name: 'Cancel backups of parts-1?' })
        .getByText(/deleted for good/)
        .waitFor();
      await confirmDialog(page, 'Cancel backups of parts-1?', 'Cancel backups');
      await toast(page, 'Backups cancelled; their copies are deleted');
      await backups.getByText('The backup service is off.').waitFor();
      await backups.getByText('No backups.').waitFor();
    });

    test('addresses: allocate a private one, a public one is refused at its field, name one, remove one; firewalls link', async (t) => {
      const { page, expectFailure } = await watchedPage(t, browser, `${dialect}-node-parts`);
      await signIn(page, server.baseUrl);
      const base = server.baseUrl;
      const ips = await apiAs<{ ipv4: { public: { address: string }[] } }>(page, base, 'GET', `/node/instances/${nodeId}/ips`);
      const publicIp = ips.ipv4.public[0]?.address ?? '';
      // A name whose A record points at the address, in a zone of this server's: reverse DNS may use it.
      const domain = await apiAs<{ id: number }>(page, base, 'POST', '/domains', {
        domain: 'parts-test.example',
        type: 'master',
        soa_email: 'hostmaster@parts-test.example',
      });
      await apiAs(page, base, 'POST', `/domains/${domain.id}/records`, { type: 'A', name: 'web', target: publicIp });
      const firewall = await apiAs<{ id: number }>(page, base, 'POST', '/networking/firewalls', {
        label: 'parts-fw',
        rules: { inbound_policy: 'ACCEPT', outbound_policy: 'ACCEPT' },
        devices: { nodes: [nodeId] },
      });

      await page.goto(`${base}/#/nodes/${nodeId}`);
      const table = page.getByRole('table', { name: 'Addresses' });
      await table.getByRole('row', { name: new RegExp(`${publicIp.replaceAll('.', '\\.')}.*Public IPv4`) }).waitFor();
      await table.getByRole('cell', { name: 'IPv6 SLAAC' }).waitFor();
      await table.getByRole('cell', { name: 'IPv6 link-local' }).waitFor();
      assert.equal(
        await table.getByRole('button', { name: `Remove address ${publicIp}` }).count(),
        0,
        'the last public IPv4 stays',
      );

      const allocate = page.getByRole('form', { name: 'Allocate an address' });
      await allocate.getByLabel('New IPv4 address').selectOption('public');
      expectFailure('POST', `/node/instances/${nodeId}/ips`, 400);
      await allocate.getByRole('button', { name: 'Allocate' }).click();
      await page.locator('.field-error[data-field="public"]').waitFor();
      await allocate.getByLabel('New IPv4 address').selectOption('private');
      await allocate.getByRole('button', { name: 'Allocate' }).click();
      await toast(page, 'Private IPv4 address allocated');
      const privateRow = table.getByRole('row', { name: /Private IPv4/ });
      await privateRow.waitFor();
      const privateIp = (await privateRow.getByRole('cell').first().textContent()) ?? '';
      assert.match(privateIp, /^192\.168\./);

      await table.getByRole('button', { name: `Set reverse DNS of ${publicIp}` }).click();
      const rdns = page.getByRole('form', { name: `Reverse DNS of ${publicIp}` });
      await rdns.getByLabel(`Reverse DNS of ${publicIp}`).fill('nowhere.parts-test.example');
      expectFailure('PUT', `/node/instances/${nodeId}/ips/`, 400);
      await rdns.getByRole('button', { name: 'Save' }).click();
      await rdns.locator('.field-error[data-field="rdns"]').waitFor();
      await rdns.getByLabel(`Reverse DNS of ${publicIp}`).fill('web.parts-test.example');
      await rdns.getByRole('button', { name: 'Save' }).click();
      await toast(page, `Reverse DNS of ${publicIp} set to web.parts-test.example`);
      await table.getByRole('cell', { name: 'web.parts-test.example' }).waitFor();

      await table.getByRole('button', { name: `Remove address ${privateIp}` }).click();
      await confirmDialog(page, `Remove address ${privateIp}?`, 'Remove');
      await toast(page, `Address ${privateIp} removed`);
      await privateRow.waitFor({ state: 'detached' });

      await page.getByRole('table', { name: 'Firewalls' }).getByRole('link', { name: 'parts-fw' }).click();
      await page.waitForURL(`**/#/firewalls/${firewall.id}`);
      await page.getByRole('heading', { name: 'parts-fw' }).waitFor();
    });

    test('graphs: the empty state before the first figures, then a canvas and a legend per graph', async (t) => {
      const { page } = await watchedPage(t, browser, `${dialect}-node-parts`);
      const scripts: string[] = [];
      page.on('request', (req) => {
        if (req.url().includes('/assets/') && req.url().endsWith('.js')) scripts.push(new URL(req.url()).pathname);
      });
      await signIn(page, server.baseUrl);
      assert.ok(!scripts.some((s) => /graphs|terminal/.test(s)), `the first page loads no graph or terminal code: ${scripts}`);
      const { data: stats } = await apiAs<{ data: { cpu: number[][] } }>(
        page,
        server.baseUrl,
        'GET',
        `/node/instances/${nodeId}/stats`,
      );
      await page.goto(`${server.baseUrl}/#/nodes/${nodeId}`);
      const graphs = page.getByRole('region', { name: 'Graphs' });
      // A simulated node's first five-minute average comes five minutes after it was made.
      if (stats.cpu.length === 0) await graphs.getByText(/No figures yet/).waitFor();
      else await graphs.locator('.graph canvas').first().waitFor();
      t.diagnostic(`simulated stats of a new node: ${stats.cpu.length} points`);

      await page.route(`**/v4/node/instances/${nodeId}/stats`, (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(fakeStats()) }),
      );
      await page.reload();
      await graphs.locator('.graph canvas').nth(3).waitFor();
      assert.equal(await graphs.locator('.graph canvas').count(), 4, 'CPU, IPv4, IPv6, disk IO');
      const captions = await graphs.locator('figcaption').allTextContents();
      assert.deepEqual(captions, ['CPU', 'Network, IPv4', 'Network, IPv6', 'Disk IO']);
      const legends = await graphs.locator('.u-legend').allTextContents();
      assert.match(legends[0] ?? '', /CPU/);
      for (const name of ['Public in', 'Public out', 'Private in', 'Private out'])
        assert.match(legends[1] ?? '', new RegExp(name));
      assert.match(legends[3] ?? '', /Disk IO.*Swap IO/);
      assert.ok(
        scripts.some((s) => s.includes('graphs')),
        'the graphs came as their own file',
      );
      await shotBothWidths(page, `${dialect}-node-parts`, 'graphs');
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.waitForTimeout(200);
      // The dark graphs at 1440 px (the menu button of the 390 px header is not this page's).
      await page.screenshot({ path: path.join(SCREENSHOTS, `${dialect}-node-parts-graphs-dark-1440.png`), fullPage: true });
      await assertAccessible(page, 'the graphs, dark');
    });

    test('console: a simulated node has none, and says so; the terminal draws under the CSP and carries keys both ways', async (t) => {
      const { page, expectFailure } = await watchedPage(t, browser, `${dialect}-node-parts`);
      await signIn(page, server.baseUrl);
      await page.goto(`${server.baseUrl}/#/nodes/${nodeId}`);
      await page.evaluate(`(() => {
        window.violations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.sample));
      })()`);
      const part = page.getByRole('region', { name: 'Console' });
      expectFailure('POST', `/node/instances/${nodeId}/console`, 400);
      await part.getByRole('button', { name: 'Open the console' }).click();
      await part.getByText('This node has no console.').waitFor();
      await part.getByText(/simulates nodes/).waitFor();
      assert.equal(await part.locator('.xterm').count(), 0, 'no terminal');

      // With a console (as CUMULO_COMPUTE=qemu gives one): the ticket and the socket stand in for the server's.
      await page.route(`**/v4/node/instances/${nodeId}/console`, (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', body: '{"ticket":"t1","url":"","expires":""}' }),
      );
      const typed: string[] = [];
      await page.routeWebSocket(/\/console\/connect\?ticket=t1$/, (ws) => {
        ws.send(Buffer.from('Debian GNU/Linux 12 parts-1 ttyS0\r\n\x1b[38;2;255;0;0mred\x1b[0m\r\nparts-1 login: '));
        ws.onMessage((message) => {
          typed.push(String(message));
        });
      });
      await part.getByRole('button', { name: 'Open the console' }).click();
      await toast(page, 'Console connected');
      await part.locator('.xterm-rows', { hasText: 'parts-1 login:' }).waitFor();
      await page.keyboard.type('root');
      for (let i = 0; i < 20 && typed.join('') !== 'root'; i++) await page.waitForTimeout(100);
      assert.equal(typed.join(''), 'root', 'what is typed goes to the node');
      const red = await part.locator('.xterm-rows span', { hasText: 'red' }).first().getAttribute('class');
      assert.match(red ?? '', /xterm-fg-196/, 'a 24-bit colour is drawn as its nearest palette colour');
      assert.ok(
        ((await page.evaluate('document.adoptedStyleSheets.length')) as number) >= 1,
        "xterm's styles are adopted stylesheets",
      );
      assert.deepEqual(await page.evaluate('window.violations'), [], 'nothing the CSP refuses');
      await shotBothWidths(page, `${dialect}-node-parts`, 'console');
      await part.getByRole('button', { name: 'Close the console' }).click();
      await toast(page, 'Console closed');
      assert.equal(await part.locator('.xterm').count(), 0);
    });

    test('a user with read-only access to the node sees its parts and no control that changes them', async (t) => {
      const { page } = await watchedPage(t, browser, `${dialect}-node-parts`);
      // The grants a restricted user with read_only on the node has (the API decides; the page hides).
      await page.route('**/v4/profile', (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', body: '{"username":"viewer","restricted":true}' }),
      );
      await page.route('**/v4/profile/grants', (route) =>
        route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({
            global: { account_access: null, add_nodes: false },
            node: [{ id: nodeId, label: 'parts-1', permissions: 'read_only' }],
          }),
        }),
      );
      await signIn(page, server.baseUrl);
      await page.goto(`${server.baseUrl}/#/nodes/${nodeId}`);
      await page.getByRole('table', { name: 'Disks' }).getByRole('cell', { name: 'system', exact: true }).waitFor();
      await page.getByRole('table', { name: 'Configs' }).getByRole('cell', { name: 'main-2', exact: true }).waitFor();
      await page.getByRole('table', { name: 'Addresses' }).waitFor();
      await page.getByText('Opening the serial console needs read-write access to this node.').waitFor();
      const parts = page.locator('.node-parts');
      const buttons = await parts.getByRole('button').allTextContents();
      assert.deepEqual(buttons, [], 'no write control');
      assert.equal(await parts.locator('form').count(), 0, 'no form');
    });
  });
}
