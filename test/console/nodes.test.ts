import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, type TestContext, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { urlWithSchema } from '../../src/db/postgres.ts';
import { type Dialect, freshPgSchema, PG_URL, tempDir } from '../helpers/app.ts';
import { CUMULO_BIN, type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { needs } from '../helpers/system-tools.ts';
import { ADMIN_PASSWORD, confirmDialog, launch, PAGE_DIALECTS, shotBothWidths, signIn, watchedPage } from './browser.ts';

const LIVE = { timeout: 60_000 };
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE laptop@example';
const VIEWER_PASSWORD = 'viewer console password';
const SCRIPT = `#!/bin/bash
# <UDF name="app_name" label="Application name" example="shop" />
# <UDF name="db_password" label="Database password" />
# <UDF name="flavour" label="Flavour" oneOf="small,large" default="small" />
# <UDF name="modules" label="Modules" manyOf="ssl,cache,mail" default="ssl" />
echo "$APP_NAME"
`;

/** As consoleServer (browser.ts), keeping the environment: the CLI run beside it needs the same database. */
async function nodesServer(t: TestContext, dialect: Dialect): Promise<{ server: ServerProcess; env: Record<string, string> }> {
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
  return { server, env };
}

/** `cumulo <args>` on the server's database, `input` on its stdin. */
function cli(env: Record<string, string>, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CUMULO_BIN, ...args],
      { env: { ...process.env, LOG_LEVEL: 'warn', ...env } },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    );
    child.stdin?.end(input);
  });
}

/** The API as the user signed in on `page`, with the token the console keeps. */
async function apiOf(page: Page, baseUrl: string) {
  const tokens = JSON.parse((await page.evaluate(() => localStorage.getItem('cumulo.tokens'))) ?? '{}');
  return async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}/v4${url}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${url}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  };
}

type Api = Awaited<ReturnType<typeof apiOf>>;

/** Waits until the node's latest `action` event has finished (an operation that leaves no status behind). */
async function finished(api: Api, action: string, nodeId: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await api<{ data: { action: string; status: string; entity: { id: number } | null }[] }>(
      'GET',
      '/account/events',
    );
    const latest = events.data.find((e) => e.action === action && e.entity?.id === nodeId);
    if (latest?.status === 'finished') return;
    assert.ok(Date.now() < deadline, `${action} on node ${nodeId} finishes`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits for the toast saying `text`; a failure's toast meanwhile fails the test with its words. */
async function said(page: Page, text: string): Promise<void> {
  const done = page.locator('.toast[data-kind="done"]', { hasText: text }).first();
  const failed = page.locator('.toast[data-kind="failed"]').first();
  await done.or(failed).waitFor();
  if (await failed.isVisible()) assert.fail(`${text}? The toast said: ${await failed.textContent()}`);
}

/** The status badge in the page's heading once it reads `status`. */
function headStatus(page: Page, status: string) {
  return page.locator('.page-head .status', { hasText: new RegExp(`^${status}$`) }).waitFor(LIVE);
}

/** The detail page's fact named `term`. */
async function fact(page: Page, term: string): Promise<string> {
  return (await page.locator(`.facts dt:text-is("${term}") + dd`).textContent()) ?? '';
}

/** Opens the folded form `title` on the node's page. */
async function openTool(page: Page, title: string) {
  await page.locator('summary', { hasText: new RegExp(`^${title}$`) }).click();
}

async function labelsInList(page: Page): Promise<string[]> {
  return page.getByRole('table', { name: 'Nodes' }).locator('tbody td[data-title="Label"]').allTextContents();
}

/** Waits until the list shows the nodes `labels`, in that order. */
async function listShows(page: Page, labels: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  let shown = await labelsInList(page);
  while (JSON.stringify(shown) !== JSON.stringify(labels) && Date.now() < deadline) {
    await page.waitForTimeout(100);
    shown = await labelsInList(page);
  }
  assert.deepEqual(shown, labels);
}

for (const dialect of PAGE_DIALECTS) {
  describe(`the nodes pages in Chromium [${dialect}]`, needs('chromium-headless-shell'), () => {
    let server: ServerProcess;
    let env: Record<string, string>;
    let browser: Browser;
    /** The restricted user, made by the CLI while the other tests run (its start-up takes seconds). */
    let viewerMade: Promise<string>;
    const cleanups: (() => unknown)[] = [];
    const suite = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
    before(async () => {
      ({ server, env } = await nodesServer(suite, dialect));
      browser = await launch(suite);
      viewerMade = cli(
        env,
        [
          'user',
          'create',
          '--account',
          '1',
          '--username',
          'viewer',
          '--email',
          'viewer@example.com',
          '--restricted',
          '--password-stdin',
        ],
        `${VIEWER_PASSWORD}\n`,
      );
      // Awaited by the last test; a failure before then is still reported there.
      viewerMade.catch(() => {});
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
    });

    test('create from a deep link: plan specs and price, image, keys, tags, firewall, StackScript fields', async (t) => {
      const { page, expectFailure } = await watchedPage(t, browser, `${dialect}-nodes-create`);
      await signIn(page, server.baseUrl);
      const api = await apiOf(page, server.baseUrl);
      await api('POST', '/profile/sshkeys', { label: 'laptop', ssh_key: SSH_KEY });
      const firewall = await api<{ id: number }>('POST', '/networking/firewalls', {
        label: 'web-fw',
        rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT' },
      });
      const script = await api<{ id: number }>('POST', '/node/stackscripts', {
        label: 'shop-setup',
        script: SCRIPT,
        images: ['node/debian12'],
      });

      await page.goto(`${server.baseUrl}/#/nodes/create?image=node/debian12&stackscript=${script.id}`);
      await page.getByRole('heading', { name: 'Create a node' }).waitFor();
      const form = page.getByRole('form', { name: 'Create a node' });
      await form.getByLabel('Application name (required)').waitFor();
      assert.equal(await form.getByLabel('Image').inputValue(), 'node/debian12', 'the link chose the image');
      assert.equal(await form.getByLabel('StackScript').inputValue(), String(script.id), 'and the StackScript');
      assert.equal(await form.getByLabel('Flavour').inputValue(), 'small', 'a oneOf field starts at its default');
      assert.equal(await form.getByLabel('Database password (required)').getAttribute('type'), 'password');
      assert.ok(await form.getByRole('checkbox', { name: 'ssl' }).isChecked(), 'a manyOf field starts at its default');

      await form.getByLabel('Label', { exact: true }).fill('app-1');
      await form.getByLabel('Region').selectOption('us-east');
      const typeOption = await form.getByLabel('Type').locator('option[value="g6-nanode-1"]').textContent();
      assert.match(typeOption ?? '', /1 vCPU, 1 GB memory, 25 GB disk, 1 TB transfer, \$5\.00\/month \(\$0\.0075\/hour\)/);
      await form.getByLabel('Type').selectOption('g6-nanode-1');
      const plan = form.getByRole('definition').filter({ hasText: '$5.00' });
      await plan.waitFor();
      await form.getByLabel('Root password').fill('Console-root-pass-1');
      await form.getByRole('checkbox', { name: 'laptop' }).check();
      await form.getByRole('combobox', { name: 'Tags' }).fill('web');
      await form.getByRole('combobox', { name: 'Tags' }).press('Enter');
      await form.getByLabel('Firewall').selectOption({ label: 'web-fw' });
      await form.getByRole('checkbox', { name: /Back it up daily/ }).check();
      await form.getByRole('checkbox', { name: /private IPv4/ }).check();
      await form.getByRole('checkbox', { name: 'cache' }).check();
      await shotBothWidths(page, `${dialect}-nodes`, 'create');

      expectFailure('POST', '/v4/node/instances', 400);
      await form.getByRole('button', { name: 'Create', exact: true }).click();
      await form.locator('.field-error[data-field="stackscript_data.app_name"]').waitFor();
      assert.equal(await form.getByLabel('Application name (required)').getAttribute('aria-invalid'), 'true');
      await page.locator('.toast[data-kind="failed"]').getByRole('button', { name: 'Dismiss' }).click();
      await form.getByLabel('Application name (required)').fill('shop');
      await form.getByLabel('Database password (required)').fill('db-secret-1');
      await form.getByLabel('Flavour').selectOption('large');
      await form.getByRole('button', { name: 'Create', exact: true }).click();
      await said(page, 'Node app-1 created');
      await page.getByRole('heading', { name: 'app-1' }).waitFor();
      assert.equal(await fact(page, 'Tags'), 'web');
      assert.match(await fact(page, 'Backups'), /^on/);

      const [node] = (await api<{ data: { id: number; tags: string[]; ipv4: string[] }[] }>('GET', '/node/instances')).data;
      assert.ok(node);
      assert.deepEqual(node.tags, ['web']);
      assert.equal(node.ipv4.length, 2, `a public and a private address: ${node.ipv4}`);
      const devices = await api<{ data: { entity: { id: number } }[] }>('GET', `/networking/firewalls/${firewall.id}/devices`);
      assert.deepEqual(
        devices.data.map((d) => d.entity.id),
        [node.id],
        'the node is behind the firewall',
      );
      const events = await api<{ data: { action: string; entity: { id: number } | null }[] }>('GET', '/account/events');
      assert.ok(events.data.some((e) => e.action === 'node_create' && e.entity?.id === node.id));
      const deployed = await api<{ deployments_total: number }>('GET', `/node/stackscripts/${script.id}`);
      assert.equal(deployed.deployments_total, 1, 'the node was deployed with the StackScript');
    });

    test('the list: search by label, filter by region and tag, sort by label, statuses live', async (t) => {
      const { page } = await watchedPage(t, browser, `${dialect}-nodes-list`);
      await signIn(page, server.baseUrl);
      const api = await apiOf(page, server.baseUrl);
      await api('POST', '/node/instances', { label: 'db-1', region: 'eu-west', type: 'g6-standard-2', tags: ['database'] });
      await api('POST', '/node/instances', { label: 'cache-1', region: 'us-east', type: 'g6-nanode-1', tags: ['database'] });
      await page.getByRole('heading', { name: 'Nodes' }).waitFor();
      const table = page.getByRole('table', { name: 'Nodes' });
      await table.getByRole('row', { name: /cache-1/ }).waitFor();
      await listShows(page, ['app-1', 'cache-1', 'db-1']);
      await table.getByRole('button', { name: 'Label' }).click();
      await listShows(page, ['db-1', 'cache-1', 'app-1']);
      assert.equal(await table.locator('th[aria-sort="descending"]').textContent(), 'Label ▼');

      await page.getByLabel('Region').selectOption('eu-west');
      await listShows(page, ['db-1']);
      await page.getByLabel('Region').selectOption('');
      await page.getByLabel('Tag').selectOption('database');
      await listShows(page, ['db-1', 'cache-1']);
      await page.getByLabel('Label contains').fill('cache');
      await listShows(page, ['cache-1']);
      await page.getByLabel('Label contains').fill('');
      await page.getByLabel('Tag').selectOption('');

      // A node shut down elsewhere turns offline here, from the events feed.
      const app1 = (await api<{ data: { id: number; label: string }[] }>('GET', '/node/instances')).data.find(
        (n) => n.label === 'app-1',
      );
      assert.ok(app1);
      await table.getByRole('row', { name: /app-1/ }).getByText('running').waitFor(LIVE);
      await api('POST', `/node/instances/${app1.id}/shutdown`);
      await table.getByRole('row', { name: /app-1/ }).getByText('offline').waitFor(LIVE);
      await shotBothWidths(page, `${dialect}-nodes`, 'list');
    });

    test("the node's page: power follows status; edit, resize, rescue, rebuild, password, clone, delete, migrate", async (t) => {
      const { page } = await watchedPage(t, browser, `${dialect}-nodes-detail`);
      await signIn(page, server.baseUrl);
      const api = await apiOf(page, server.baseUrl);
      await page.getByRole('link', { name: 'app-1' }).click();
      await page.getByRole('heading', { name: 'app-1' }).waitFor();
      await headStatus(page, 'offline');
      const power = page.getByRole('group', { name: 'Power' });
      assert.equal(await power.getByRole('button', { name: 'Shut down' }).count(), 0, 'no Shut down when off');
      await openTool(page, 'Reset the root password');
      await page.getByLabel('New root password').fill('Another-root-pass-2');
      await page.getByRole('button', { name: 'Reset the password' }).click();
      await said(page, 'Root password of app-1 reset');
      const id = Number(page.url().split('/').pop());
      await finished(api, 'password_reset', id);

      await power.getByRole('button', { name: 'Boot', exact: true }).click();
      await said(page, 'Booting app-1');
      await headStatus(page, 'running');
      assert.equal(await power.getByRole('button', { name: 'Boot', exact: true }).count(), 0, 'no Boot when running');
      assert.equal(await page.locator('summary', { hasText: 'Reset the root password' }).count(), 0, 'only when off');

      await openTool(page, 'Edit label and tags');
      const edit = page.getByRole('form', { name: 'Edit the node' });
      await edit.getByLabel('Label').fill('shop-1');
      await edit.getByRole('combobox', { name: 'Tags' }).fill('shop');
      await edit.getByRole('combobox', { name: 'Tags' }).press('Enter');
      await edit.getByRole('button', { name: 'Save' }).click();
      await said(page, 'Node shop-1 saved');
      await page.getByRole('heading', { name: 'shop-1' }).waitFor();
      assert.equal(await fact(page, 'Tags'), 'shop, web');

      await power.getByRole('button', { name: 'Reboot' }).click();
      await confirmDialog(page, /^Reboot shop-1\?$/, 'Reboot');
      await said(page, 'Rebooting shop-1');
      await finished(api, 'node_reboot', id);
      await headStatus(page, 'running');

      await openTool(page, 'Resize');
      await page.getByLabel('New type').selectOption('g6-standard-1');
      await page.getByRole('button', { name: 'Resize', exact: true }).click();
      await confirmDialog(page, /^Resize shop-1 to Node 2GB\?$/, 'Resize');
      await said(page, 'Resizing shop-1 to Node 2GB');
      await page.locator('.facts dd', { hasText: /^g6-standard-1:/ }).waitFor(LIVE);
      await headStatus(page, 'running');

      await openTool(page, 'Rescue');
      // The disks load when the tool opens; until then every slot reads None.
      await page
        .getByLabel('/dev/sda')
        .locator('option:checked:not([value=""])')
        .waitFor({ state: 'attached', ...LIVE });
      assert.notEqual(await page.getByLabel('/dev/sda').inputValue(), '', 'the first disk goes to sda');
      await page.getByRole('button', { name: 'Reboot into rescue mode' }).click();
      await confirmDialog(page, /^Reboot shop-1 into rescue mode\?$/, 'Rescue');
      await said(page, 'shop-1 is rebooting into rescue mode');
      await finished(api, 'node_reboot', id);
      await headStatus(page, 'running');

      await openTool(page, 'Rebuild');
      const rebuild = page.getByRole('form', { name: 'Rebuild the node' });
      await rebuild.getByLabel('Image').selectOption('node/debian11');
      await rebuild.getByLabel('Root password').fill('Rebuilt-root-pass-3');
      await rebuild.getByRole('checkbox', { name: 'laptop' }).check();
      await rebuild.getByRole('button', { name: 'Rebuild' }).click();
      await confirmDialog(page, /^Rebuild shop-1\?$/, 'Rebuild');
      await said(page, 'Rebuilding shop-1');
      await page.locator('.facts dd', { hasText: /^node\/debian11$/ }).waitFor(LIVE);
      await headStatus(page, 'running');
      await shotBothWidths(page, `${dialect}-nodes`, 'detail');

      await openTool(page, 'Clone');
      const clone = page.getByRole('form', { name: 'Clone the node' });
      await clone.getByLabel('Label of the new node').fill('shop-copy');
      await clone.getByRole('button', { name: 'Clone' }).click();
      await said(page, 'Cloning shop-1 to a new node');
      await page.getByRole('heading', { name: 'shop-copy' }).waitFor();
      await headStatus(page, 'offline');
      assert.equal(await fact(page, 'Region'), 'us-east', "the clone went to the source's region");

      // Into an existing node: db-1, which has no disks yet.
      await page.getByRole('link', { name: 'Nodes' }).click();
      await page.getByRole('link', { name: 'shop-1' }).click();
      await openTool(page, 'Clone');
      await clone.getByRole('radio', { name: 'one of your nodes' }).check();
      await clone.getByLabel('Node to clone into').selectOption({ label: 'db-1' });
      await clone.getByRole('button', { name: 'Clone' }).click();
      await confirmDialog(page, /^Clone shop-1 into db-1\?$/, 'Clone');
      await said(page, 'Cloning shop-1 into db-1');

      await page.getByRole('link', { name: 'Nodes' }).click();
      await page.getByRole('link', { name: 'shop-copy' }).click();
      await page.getByRole('group', { name: 'Power' }).getByRole('button', { name: 'Delete' }).click();
      await confirmDialog(page, /^Delete shop-copy\?$/, 'Delete');
      await said(page, 'Node shop-copy deleted');
      await page.getByRole('heading', { name: 'Nodes' }).waitFor();
      await page.getByRole('link', { name: 'db-1' }).click();
      await page.getByRole('table', { name: 'Disks' }).getByRole('row').nth(1).waitFor(LIVE);

      // Last, as it takes longest: the read-only user's test sees where it ends.
      await page.getByRole('link', { name: 'Nodes' }).click();
      await page.getByRole('link', { name: 'shop-1' }).click();
      await headStatus(page, 'running');
      await openTool(page, 'Migrate');
      await page.getByLabel('To region').selectOption('us-west');
      await page.getByRole('button', { name: 'Migrate', exact: true }).click();
      await confirmDialog(page, /^Migrate shop-1 to us-west\?$/, 'Migrate');
      await said(page, 'Migrating shop-1 to us-west');
      await headStatus(page, 'migrating');
    });

    test('a restricted user with a read-only grant sees the node but no control that writes', async (t) => {
      const admin = await watchedPage(t, browser, `${dialect}-nodes-admin`);
      await signIn(admin.page, server.baseUrl);
      const api = await apiOf(admin.page, server.baseUrl);
      const nodes = (await api<{ data: { id: number; label: string }[] }>('GET', '/node/instances')).data;
      const shop = nodes.find((n) => n.label === 'shop-1');
      assert.ok(shop);
      assert.match(await viewerMade, /username=viewer/);
      await api('PUT', '/account/users/viewer/grants', {
        global: { add_nodes: false },
        node: [{ id: shop.id, permissions: 'read_only' }],
      });

      const { page } = await watchedPage(t, browser, `${dialect}-nodes-viewer`);
      await page.goto(`${server.baseUrl}/`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('Username').fill('viewer');
      await page.keyboard.press('Tab');
      await page.keyboard.type(VIEWER_PASSWORD);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Nodes' }).waitFor();
      await page.locator('.who', { hasText: 'viewer' }).waitFor();
      await page.getByRole('link', { name: 'shop-1' }).waitFor();
      assert.deepEqual(await labelsInList(page), ['shop-1'], 'only the granted node');
      assert.equal(await page.getByRole('link', { name: 'Create a node' }).count(), 0, 'no Create without add_nodes');

      await page.getByRole('link', { name: 'shop-1' }).click();
      await headStatus(page, 'running');
      assert.equal(await fact(page, 'Region'), 'us-west', 'the migration ended in its region');
      assert.equal(await page.getByRole('group', { name: 'Power' }).count(), 0, 'no power buttons');
      for (const name of ['Boot', 'Shut down', 'Reboot', 'Delete']) {
        assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name}`);
      }
      assert.equal(await page.locator('.node-changes').count(), 0, 'no edit, rebuild, resize, rescue, clone or migrate');
      assert.equal(await page.locator('summary').count(), 0);
      await shotBothWidths(page, `${dialect}-nodes`, 'read-only');

      await page.goto(`${server.baseUrl}/#/nodes/create`);
      await page.getByText('You may not create nodes').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Create', exact: true }).count(), 0);
    });
  });
}
