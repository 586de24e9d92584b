import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import zlib from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { DIALECTS, tempDir } from '../helpers/app.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { needs } from '../helpers/system-tools.ts';
import { confirmDialog, consoleServer, launch, signIn, toast, watchedPage } from './browser.ts';

const LIVE = { timeout: 60_000 };

/** The status badge in the page's heading once it reads `status`. */
function headStatus(page: Page, status: string) {
  return page.locator('.page-head .status', { hasText: new RegExp(`^${status}$`) }).waitFor(LIVE);
}

for (const dialect of DIALECTS) {
  describe(`web console in Chromium [${dialect}]`, needs('chromium-headless-shell'), () => {
    let server: ServerProcess;
    let browser: Browser;
    const shots: string[] = [];
    // One server and browser for the suite, ended by its own `after` (a suite's hooks get no test context).
    const cleanups: (() => unknown)[] = [];
    const suite = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
    before(async () => {
      server = await consoleServer(suite, dialect);
      browser = await launch(suite);
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
      for (const file of shots.filter(Boolean)) assert.ok(fs.statSync(file).size > 10_000, `${file} is a real screenshot`);
    });

    test('sign in, create a node and watch it reach running, shut it down, boot it, delete it', async (t) => {
      const { page, shot, expectFailure } = await watchedPage(t, browser, `${dialect}-node`);
      await signIn(page, server.baseUrl);
      shots.push(await shot('signed-in'));
      await page.getByRole('link', { name: 'Create a node' }).click();
      // The list's own 'Label contains' box would take the text until the form is drawn.
      await page.getByRole('heading', { name: 'Create a node' }).waitFor();
      await page.getByLabel('Label').fill('web-1');
      await page.getByLabel('Region').selectOption('us-east');
      await page.getByLabel('Type').selectOption('g6-standard-1');
      await page.getByLabel('Image').selectOption('node/debian12');
      await page.getByLabel('Root password').fill('short');
      await page.getByLabel('Other public keys, one a line').fill('not an ssh key');
      expectFailure('POST', '/v4/node/instances', 400);
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.locator('.field-error[data-field="root_pass"]').waitFor();
      assert.equal(await page.getByLabel('Root password').getAttribute('aria-invalid'), 'true');
      shots.push(await shot('create-refused'));
      await page.getByLabel('Root password').fill('Console-root-pass-1');
      expectFailure('POST', '/v4/node/instances', 400);
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.locator('.field-error[data-field="authorized_keys"]', { hasText: /key/i }).waitFor();
      assert.equal(await page.locator('.field-error[data-field="root_pass"]').count(), 0, 'the fixed field shows no error');
      await page.getByLabel('Other public keys, one a line').fill('');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'web-1' }).waitFor();
      await headStatus(page, 'provisioning');
      shots.push(await shot('provisioning'));
      await headStatus(page, 'running');
      await page.getByRole('table', { name: 'Disks' }).getByText('Debian 12 Disk').waitFor();
      shots.push(await shot('running'));

      await page.getByRole('button', { name: 'Shut down' }).click();
      await confirmDialog(page, /^Shut down web-1\?$/, 'Shut down');
      await toast(page, 'Shutting down');
      await headStatus(page, 'offline');
      await page.getByRole('button', { name: 'Boot', exact: true }).click();
      await headStatus(page, 'running');

      await page.getByRole('link', { name: 'Nodes' }).click();
      const row = page.getByRole('row', { name: /web-1/ });
      await row.getByText('running').waitFor();
      await row.getByText('us-east').waitFor();
      await page.getByLabel('Label contains').fill('nothing-like-it');
      await page.getByText('No node matches these filters.').waitFor();
      await page.getByLabel('Label contains').fill('web');
      await row.waitFor();
      shots.push(await shot('list'));

      await row.getByRole('link', { name: 'web-1' }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await confirmDialog(page, /^Delete web-1\?$/, 'Delete');
      await page.getByRole('heading', { name: 'Nodes' }).waitFor();
      await toast(page, 'Node web-1 deleted');
      await page.getByLabel('Label contains').fill('web-1');
      await page.getByText('No node matches these filters.').waitFor(LIVE);
    });

    test('a firewall: a bad rule is refused at its field, a good one is added, a node joins it', async (t) => {
      const { page, shot, expectFailure } = await watchedPage(t, browser, `${dialect}-firewall`);
      await signIn(page, server.baseUrl);
      await page.getByRole('link', { name: 'Create a node' }).click();
      // The list's own 'Label contains' box would take the text until the form is drawn.
      await page.getByRole('heading', { name: 'Create a node' }).waitFor();
      await page.getByLabel('Label').fill('behind-fw');
      await page.getByLabel('Region').selectOption('us-east');
      await page.getByLabel('Type').selectOption('g6-nanode-1');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name: 'behind-fw' }).waitFor();

      await page.getByRole('link', { name: 'Firewalls' }).click();
      await page.getByRole('link', { name: 'Create a firewall' }).click();
      // The list's own 'Label contains' box would take the text until the form is drawn.
      await page.getByRole('heading', { name: 'Create a firewall' }).waitFor();
      await page.getByLabel('Label').fill('edge');
      await page.getByRole('button', { name: 'Create firewall' }).click();
      await page.getByRole('heading', { name: 'edge' }).waitFor();

      const form = page.getByRole('form', { name: 'Add an inbound rule' });
      await form.getByLabel('Label').fill('ssh-in');
      await form.getByLabel('Ports').fill('99999');
      expectFailure('PUT', '/rules', 400);
      await form.getByRole('button', { name: 'Add rule' }).click();
      const portsError = form.locator('.field-error[data-field="inbound[0].ports"]');
      await portsError.waitFor();
      assert.match((await portsError.textContent()) ?? '', /port/i);
      assert.equal(await form.getByLabel('Ports').getAttribute('aria-invalid'), 'true');
      shots.push(await shot('field-error'));

      await form.getByLabel('Ports').fill('22');
      await form.getByRole('button', { name: 'Add rule' }).click();
      const rules = page.getByRole('table', { name: 'Inbound rules' });
      const row = rules.getByRole('row', { name: /ssh-in/ });
      await row.getByText('0.0.0.0/0, ::/0').waitFor();
      assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(0, 4), ['ssh-in', 'ACCEPT', 'TCP', '22']);

      await page.getByRole('form', { name: 'Add a node' }).getByLabel('Node').selectOption({ label: 'behind-fw' });
      await page.getByRole('button', { name: 'Add node' }).click();
      await page.getByRole('table', { name: 'Devices' }).getByRole('link', { name: 'behind-fw' }).waitFor();
      shots.push(await shot('rules'));
    });

    test('a domain: a record added shows in the records and in the zone file', async (t) => {
      const { page, shot } = await watchedPage(t, browser, `${dialect}-domain`);
      await signIn(page, server.baseUrl);
      await page.getByRole('link', { name: 'Domains' }).click();
      await page.getByRole('link', { name: 'Add a domain' }).click();
      await page.getByLabel('Domain', { exact: true }).fill('console-test.example');
      await page.getByLabel('SOA email').fill('hostmaster@console-test.example');
      await page.getByRole('button', { name: 'Add domain' }).click();
      await page.getByRole('heading', { name: 'console-test.example' }).waitFor();
      const form = page.getByRole('form', { name: 'Add a record' });
      await form.getByLabel('Type').selectOption('TXT');
      await form.getByLabel('Name').fill('_acme-challenge');
      await form.getByLabel('Text').fill('token-from-the-console');
      await form.getByRole('button', { name: 'Add record' }).click();
      await page.getByRole('table', { name: 'Records' }).getByText('token-from-the-console').waitFor();
      await page.locator('pre.zone', { hasText: '_acme-challenge' }).waitFor();
      assert.match(
        (await page.locator('pre.zone').textContent()) ?? '',
        /^_acme-challenge\.console-test\.example\. \d+ IN TXT "token-from-the-console"$/m,
      );
      shots.push(await shot('records'));
    });

    test('an image upload: the progress bar moves from 0 to 100, and the image becomes available', async (t) => {
      const { page, shot, context } = await watchedPage(t, browser, `${dialect}-image`);
      await signIn(page, server.baseUrl);
      const file = path.join(tempDir(t), 'small.img.gz');
      fs.writeFileSync(file, zlib.gzipSync(crypto.randomBytes(384 * 1024), { level: 0 }));
      await page.getByRole('link', { name: 'Images' }).click();
      const form = page.getByRole('form', { name: 'Upload an image' });
      await form.getByLabel('Label').fill('uploaded-from-console');
      await form.getByLabel('Region').selectOption('us-east');
      await form.getByLabel('Image file (.img.gz)').setInputFiles(file);
      // Slow the upload down (to 128 KB/s) so that the bar has time to move.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 128 * 1024,
      });
      // Every value the bar shows, in order (run in the page, where the DOM is).
      await page.evaluate(`(() => {
        const seen = (window.progressSeen = []);
        new MutationObserver(() => {
          const bar = document.querySelector('progress');
          if (bar && seen.at(-1) !== bar.value) seen.push(bar.value);
        }).observe(document.body, { subtree: true, childList: true, attributes: true });
      })()`);
      await form.getByRole('button', { name: 'Upload' }).click();
      // A screenshot on the way: once the bar shows 20 % or more.
      const bar = page.locator('progress');
      await bar.waitFor();
      for (let value = 0; value < 20; value = Number(await bar.getAttribute('value'))) await page.waitForTimeout(25);
      shots.push(await shot('uploading'));
      await page.locator('.toast[data-kind="done"]', { hasText: 'Uploaded uploaded-from-console' }).waitFor(LIVE);
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      const seen = (await page.evaluate('window.progressSeen')) as number[];
      assert.equal(seen.at(-1), 100, `the bar ends full: ${seen}`);
      assert.ok(seen.filter((v) => v > 0 && v < 100).length >= 3, `the bar moved through the upload: ${seen}`);
      const row = page.getByRole('table', { name: 'Your images' }).getByRole('row', { name: /uploaded-from-console/ });
      // The list follows the image from pending upload to available, without the page being read again.
      await row.locator('.status', { hasText: /^available$/ }).waitFor(LIVE);
      shots.push(await shot('uploaded'));
    });

    test('the events feed shows what was done, newest first', async (t) => {
      const { page, shot } = await watchedPage(t, browser, `${dialect}-events`);
      await signIn(page, server.baseUrl);
      await page.getByRole('link', { name: 'Events' }).click();
      const table = page.getByRole('table', { name: 'Events' });
      for (const action of [
        'node_create',
        'node_shutdown',
        'node_boot',
        'node_delete',
        'firewall_create',
        'firewall_update',
        'firewall_device_add',
        'image_upload',
      ]) {
        await table.getByRole('cell', { name: action, exact: true }).first().waitFor(LIVE);
      }
      shots.push(await shot('feed'));
    });

    test('390 px wide: the menu opens from its button, lists read as cards, nothing runs off the side', async (t) => {
      const { page, shot } = await watchedPage(t, browser, `${dialect}-narrow`, { width: 390, height: 844 });
      await signIn(page, server.baseUrl);
      assert.equal(await page.getByRole('link', { name: 'Firewalls' }).isVisible(), false, 'the sections hide behind the menu');
      await page.getByRole('button', { name: 'Menu' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('link', { name: 'Domains' }).click();
      await page.getByRole('heading', { name: 'Domains' }).waitFor();
      await page.getByRole('link', { name: 'console-test.example' }).waitFor();
      assert.equal(await page.title(), 'Domains · Cumulo console');
      assert.equal(await page.evaluate('document.activeElement.id'), 'main', 'focus moved to the new page');
      const overflow = (await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      )) as number;
      assert.ok(overflow <= 0, `no sideways scrolling (${overflow} px over)`);
      shots.push(await shot('domains'));
    });
  });
}
