import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import zlib from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { tempDir } from '../helpers/app.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { needs } from '../helpers/system-tools.ts';
import { confirmDialog, consoleServer, launch, PAGE_DIALECTS, shotBothWidths, signIn, toast, watchedPage } from './browser.ts';

const LIVE = { timeout: 30_000 };
/** The admin API's token: consoleServer passes this process's environment on, and the admin API sets a user's password. */
const ADMIN_API_TOKEN = 'catalog-test-admin-token-0123456789';
const VIEWER_PASSWORD = 'viewer password 1';

/** Signs in as `username`, as signIn does for the admin. */
async function signInAs(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(username);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Nodes' }).waitFor();
}

/** A private image of the signed-in user's account, uploaded through the API from the page. */
async function uploadedImage(page: Page, label: string): Promise<string> {
  const started = await apiAs<{ image: { id: string }; upload_to: string }>(page, 'POST', '/images/upload', {
    label,
    region: 'us-east',
  });
  const data = [...zlib.gzipSync(crypto.randomBytes(4096))];
  const status = await page.evaluate(
    async ([url, bytes]) =>
      (await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(bytes) }))
        .status,
    [started.upload_to, data] as const,
  );
  assert.ok(status < 300, `the upload was taken (${status})`);
  return started.image.id;
}

/** Calls the API from the page as the signed-in user (with the console's own token), for setting up and reading back. */
async function apiAs<T>(page: Page, method: string, apiPath: string, body?: unknown): Promise<T> {
  const answer = await page.evaluate(
    async ([m, p, b]) => {
      const tokens = JSON.parse(localStorage.getItem('cumulo.tokens') ?? '{}') as { access_token: string };
      const res = await fetch(`/v4${p}`, {
        method: m,
        headers: {
          authorization: `Bearer ${tokens.access_token}`,
          ...(b === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: b === undefined ? null : JSON.stringify(b),
      });
      return { status: res.status, body: (await res.json()) as unknown };
    },
    [method, apiPath, body] as const,
  );
  assert.ok(answer.status < 400, `${method} ${apiPath}: ${JSON.stringify(answer.body)}`);
  return answer.body as T;
}

/** Closes the failure's toast that names `text` (failures stay until dismissed), as a user who has read it. */
async function dismissFailure(page: Page, text: string): Promise<void> {
  const failure = page.locator('.toast[data-kind="failed"]', { hasText: text });
  await failure.getByRole('button', { name: 'Dismiss' }).click();
  await failure.waitFor({ state: 'detached' });
}

/** The cell texts of a table's column, in row order. */
async function column(page: Page, table: string, title: string): Promise<string[]> {
  return page.getByRole('table', { name: table, exact: true }).locator(`td[data-title="${title}"]`).allTextContents();
}

for (const dialect of PAGE_DIALECTS) {
  describe(`images, StackScripts, managed and tags in the console [${dialect}]`, needs('chromium-headless-shell'), () => {
    let server: ServerProcess;
    let browser: Browser;
    const shots: string[] = [];
    const cleanups: (() => unknown)[] = [];
    const suite = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
    const prefix = `${dialect}-catalog`;
    before(async () => {
      process.env.CUMULO_ADMIN_TOKEN = ADMIN_API_TOKEN;
      server = await consoleServer(suite, dialect);
      browser = await launch(suite);
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
      for (const file of shots) assert.ok(fs.statSync(file).size > 10_000, `${file} is a real screenshot`);
    });

    test('images: search and sort, an upload turns available by itself, edit, deploy link, delete', async (t) => {
      const { page } = await watchedPage(t, browser, prefix);
      await signIn(page, server.baseUrl);
      await page.getByRole('link', { name: 'Images', exact: true }).click();
      await page.getByRole('heading', { name: 'Images', level: 1 }).waitFor();

      const shared = page.getByRole('table', { name: 'Public images' });
      await shared.getByRole('cell', { name: 'Debian 12', exact: true }).waitFor();
      await shared.getByRole('button', { name: 'Size (MB)' }).click();
      await page.locator('th[aria-sort="ascending"]', { hasText: 'Size (MB)' }).waitFor();
      // The first row once the new order is drawn (a locator: the page's CSP refuses waitForFunction's string).
      await page
        .locator('table[aria-label="Public images"] tbody tr:first-child td[data-title="Size (MB)"]', { hasText: /^64$/ })
        .waitFor();
      const sizes = (await column(page, 'Public images', 'Size (MB)')).map(Number);
      assert.deepEqual(
        sizes,
        [...sizes].sort((a, b) => a - b),
        'public images ordered by size',
      );
      await page.getByLabel('Label contains').fill('Debian');
      await shared.getByRole('cell', { name: 'Alpine 3.20', exact: true }).waitFor({ state: 'detached' });
      assert.deepEqual((await column(page, 'Public images', 'Label')).sort(), [
        'Debian 10 (deprecated)',
        'Debian 11',
        'Debian 12',
      ]);
      const deploy = shared.getByRole('row', { name: /Debian 12/ }).getByRole('link', { name: 'Deploy Debian 12 to a new node' });
      assert.equal(await deploy.getAttribute('href'), '#/nodes/create?image=node%2Fdebian12');
      await page.getByLabel('Label contains').fill('');

      const file = path.join(tempDir(t), 'disk.img.gz');
      fs.writeFileSync(file, zlib.gzipSync(crypto.randomBytes(64 * 1024), { level: 0 }));
      const form = page.getByRole('form', { name: 'Upload an image' });
      await form.getByLabel('Label').fill('golden-disk');
      await form.getByLabel('Region').selectOption('us-east');
      await form.getByLabel('Image file (.img.gz)').setInputFiles(file);
      await form.getByRole('button', { name: 'Upload' }).click();
      await toast(page, 'Uploaded golden-disk');
      const mine = page.getByRole('table', { name: 'Your images' });
      const row = mine.getByRole('row', { name: /golden-disk/ });
      // The bug this guards against: the row stayed "pending upload" until the page was read again.
      await row.locator('.status', { hasText: /^available$/ }).waitFor(LIVE);
      const [image] = (await apiAs<{ data: { id: string; label: string }[] }>(page, 'GET', '/images?page_size=100')).data.filter(
        (i) => i.label === 'golden-disk',
      );
      assert.ok(image);
      assert.equal(
        await row.getByRole('link', { name: 'Deploy golden-disk to a new node' }).getAttribute('href'),
        `#/nodes/create?image=${encodeURIComponent(image.id)}`,
      );

      await row.getByRole('button', { name: 'Edit golden-disk' }).click();
      const edit = page.getByRole('form', { name: 'Edit image golden-disk' });
      await edit.getByLabel('Label').fill('golden-disk-v2');
      await edit.getByLabel('Description').fill('Base disk with our agent');
      const tagField = edit.getByPlaceholder('Add a tag, then Enter');
      await tagField.fill('golden');
      await tagField.press('Enter');
      await tagField.fill('base');
      await tagField.press('Enter');
      await edit.getByRole('button', { name: 'Remove tag base' }).click();
      await edit.getByRole('button', { name: 'Save' }).click();
      await toast(page, 'Image golden-disk-v2 saved');
      const renamed = mine.getByRole('row', { name: /golden-disk-v2/ });
      await renamed.getByText('Base disk with our agent').waitFor();
      await renamed.getByRole('cell', { name: 'golden', exact: true }).waitFor();
      const stored = await apiAs<{ label: string; description: string; tags: string[] }>(page, 'GET', `/images/${image.id}`);
      assert.deepEqual(
        [stored.label, stored.description, stored.tags],
        ['golden-disk-v2', 'Base disk with our agent', ['golden']],
      );
      shots.push(...(await shotBothWidths(page, prefix, 'images')));

      await renamed.getByRole('button', { name: 'Delete golden-disk-v2' }).click();
      await confirmDialog(page, 'Delete image golden-disk-v2?', 'Delete');
      await toast(page, 'Image golden-disk-v2 deleted');
      await page.getByText('No images of your own yet.').waitFor();
    });

    test('StackScripts: create with a field, view it, edit it, find it, deploy link, delete; a public one stays', async (t) => {
      const { page, expectFailure } = await watchedPage(t, browser, prefix);
      await signIn(page, server.baseUrl);
      await page.getByRole('link', { name: 'StackScripts', exact: true }).click();
      await page.getByRole('link', { name: 'Create a StackScript' }).click();
      const form = page.getByRole('form', { name: 'New StackScript' });
      await form.getByLabel('Label').fill('web-setup');
      await form.getByLabel('Description').fill('Installs a web server');
      await form.getByLabel('Script', { exact: true }).fill('#!/bin/sh\necho nothing to ask\n');
      expectFailure('POST', '/v4/node/stackscripts', 400);
      await form.getByRole('button', { name: 'Create StackScript' }).click();
      await form.locator('.field-error[data-field="images"]').waitFor();
      await dismissFailure(page, 'images');
      await form.getByLabel('Debian 12').check();
      await form
        .getByLabel('Script', { exact: true })
        .fill(
          '#!/bin/sh\n# <UDF name="site_name" label="Site name" example="example.com" default="localhost" />\necho "$SITE_NAME"\n',
        );
      await form.getByLabel('Revision note').fill('first cut');
      await form.getByRole('button', { name: 'Create StackScript' }).click();
      await toast(page, 'StackScript web-setup created');
      await page.getByRole('heading', { name: 'web-setup', level: 1 }).waitFor();
      const fields = page.getByRole('table', { name: 'User-defined fields' });
      await fields.getByRole('cell', { name: 'site_name' }).waitFor();
      await fields.getByRole('cell', { name: 'Site name' }).waitFor();
      assert.match((await page.locator('pre.script').textContent()) ?? '', /echo "\$SITE_NAME"/);
      const id = Number(/#\/stackscripts\/(\d+)/.exec(page.url())?.[1]);
      assert.equal(
        await page.getByRole('link', { name: 'Deploy to a new node' }).getAttribute('href'),
        `#/nodes/create?stackscript=${id}&image=node%2Fdebian12`,
      );
      shots.push(...(await shotBothWidths(page, prefix, 'stackscript')));

      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      const edit = page.getByRole('form', { name: 'Edit StackScript web-setup' });
      await edit.getByLabel('Description').fill('Installs and starts a web server');
      await edit.getByLabel('Debian 11').check();
      await edit.getByLabel('Revision note').fill('Debian 11 too');
      await edit.getByRole('button', { name: 'Save' }).click();
      await toast(page, 'StackScript web-setup saved');
      await page.getByText('Installs and starts a web server').waitFor();
      await page.getByText('node/debian12, node/debian11').waitFor();
      assert.equal(
        await page.getByRole('link', { name: 'Deploy to a new node' }).getAttribute('href'),
        `#/nodes/create?stackscript=${id}`,
        'two images fit: none is chosen for the user',
      );
      const stored = await apiAs<{ rev_note: string; images: string[] }>(page, 'GET', `/node/stackscripts/${id}`);
      assert.deepEqual([stored.rev_note, stored.images], ['Debian 11 too', ['node/debian12', 'node/debian11']]);

      // A public one: asked first, since it cannot be undone; then it has no Delete.
      await page.getByRole('link', { name: 'StackScripts', exact: true }).click();
      await page.getByRole('link', { name: 'Create a StackScript' }).click();
      const second = page.getByRole('form', { name: 'New StackScript' });
      await second.getByLabel('Label').fill('shared-setup');
      await second.getByLabel('Any image').check();
      await second.getByLabel('Script', { exact: true }).fill('#!/bin/sh\ntrue\n');
      await second.getByLabel(/^Public/).check();
      await second.getByRole('button', { name: 'Create StackScript' }).click();
      await confirmDialog(page, 'Make StackScript shared-setup public?', 'Make public');
      await page.getByRole('heading', { name: 'shared-setup', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Edit', exact: true }).waitFor();
      assert.equal(
        await page.getByRole('button', { name: 'Delete', exact: true }).count(),
        0,
        'a public script cannot be deleted',
      );

      await page.getByRole('link', { name: 'StackScripts', exact: true }).click();
      const list = page.getByRole('table', { name: 'StackScripts' });
      await list.getByRole('link', { name: 'web-setup' }).waitFor();
      await list.getByRole('button', { name: 'Label' }).click();
      await page.locator('th[aria-sort="descending"]', { hasText: 'Label' }).waitFor();
      await page
        .locator('table[aria-label="StackScripts"] tbody tr:first-child td[data-title="Label"]', { hasText: /^web-setup$/ })
        .waitFor();
      assert.deepEqual(await column(page, 'StackScripts', 'Label'), ['web-setup', 'shared-setup']);
      await page.getByLabel('Label contains').fill('web');
      await list.getByRole('link', { name: 'shared-setup' }).waitFor({ state: 'detached' });
      await page.getByLabel('Label contains').fill('');
      await page.getByLabel('Whose').selectOption('public');
      await list.getByRole('link', { name: 'web-setup' }).waitFor({ state: 'detached' });
      await list.getByRole('link', { name: 'shared-setup' }).waitFor();
      await page.getByLabel('Whose').selectOption('all');
      await list.getByRole('link', { name: 'web-setup' }).waitFor();
      shots.push(...(await shotBothWidths(page, prefix, 'stackscripts')));

      await list.getByRole('link', { name: 'web-setup' }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await confirmDialog(page, 'Delete StackScript web-setup?', 'Delete');
      await toast(page, 'StackScript web-setup deleted');
      await page.getByRole('heading', { name: 'StackScripts', level: 1 }).waitFor();
      await list.getByRole('link', { name: 'shared-setup' }).waitFor();
      assert.equal(await list.getByRole('link', { name: 'web-setup' }).count(), 0);
    });

    test('managed: a service watched, refused at its field, edited, disabled and enabled; contacts, credentials, node access', async (t) => {
      const { page, expectFailure } = await watchedPage(t, browser, prefix);
      await signIn(page, server.baseUrl);
      const node = await apiAs<{ id: number }>(page, 'POST', '/node/instances', {
        label: 'managed-box',
        region: 'us-east',
        type: 'g6-nanode-1',
      });
      await page.getByRole('link', { name: 'Managed', exact: true }).click();
      await page.getByRole('heading', { name: 'Managed', level: 1 }).waitFor();

      const add = page.getByRole('form', { name: 'Monitor a service' });
      await add.getByLabel('Label').fill('shop front');
      await add.getByLabel('Address').fill('not an address');
      expectFailure('POST', '/v4/managed/services', 400);
      await add.getByRole('button', { name: 'Add service' }).click();
      await add.locator('.field-error[data-field="address"]').waitFor();
      await dismissFailure(page, 'address');
      await add.getByLabel('Address').fill('https://shop.example.com/health');
      await add.getByRole('button', { name: 'Add service' }).click();
      await toast(page, 'Service shop front added');
      const services = page.getByRole('table', { name: 'Services' });
      const service = services.getByRole('row', { name: /shop front/ });
      await service.waitFor();
      assert.equal(await add.getByLabel('Label').inputValue(), '', 'the form is empty again');
      // The probe's answer shows without the page being read again (the list is polled: probes have no events).
      await service.locator('.status', { hasText: /^(ok|problem)$/ }).waitFor(LIVE);

      await service.getByRole('button', { name: 'Edit service shop front' }).click();
      const edit = page.getByRole('form', { name: 'Edit service shop front' });
      await edit.getByLabel('Timeout (s)').fill('7');
      await edit.getByRole('button', { name: 'Save service' }).click();
      await toast(page, 'Service shop front saved');
      await service.getByRole('cell', { name: '7 s' }).waitFor();

      await service.getByRole('button', { name: 'Disable service shop front' }).click();
      await confirmDialog(page, 'Disable service shop front?', 'Disable');
      await toast(page, 'Service shop front disabled');
      await service.locator('.status', { hasText: /^disabled$/ }).waitFor();
      await service.getByRole('button', { name: 'Enable service shop front' }).click();
      await toast(page, 'Service shop front enabled');
      await service.getByRole('button', { name: 'Disable service shop front' }).waitFor();
      assert.notEqual(await service.locator('.status').textContent(), 'disabled');

      const newContact = page.getByRole('form', { name: 'Add a contact' });
      await newContact.getByLabel('Name').fill('Ada Ops');
      await newContact.getByLabel('Email').fill('ada@example.com');
      await newContact.getByLabel('Phone', { exact: true }).fill('+1 555 0100');
      await newContact.getByRole('button', { name: 'Add contact' }).click();
      await toast(page, 'Contact Ada Ops added');
      const contact = page.getByRole('table', { name: 'Contacts' }).getByRole('row', { name: /Ada Ops/ });
      await contact.getByText('ada@example.com').waitFor();
      await contact.getByRole('button', { name: 'Edit contact Ada Ops' }).click();
      const editContact = page.getByRole('form', { name: 'Edit contact Ada Ops' });
      await editContact.getByLabel('Group').fill('on-call');
      await editContact.getByRole('button', { name: 'Save contact' }).click();
      await toast(page, 'Contact Ada Ops saved');
      await contact.getByRole('cell', { name: 'on-call' }).waitFor();

      const newCredential = page.getByRole('form', { name: 'Store a credential' });
      await newCredential.getByLabel('Label').fill('shop admin');
      await newCredential.getByLabel('Username (optional)').fill('admin');
      await newCredential.getByLabel('Password').fill('first-secret');
      await newCredential.getByRole('button', { name: 'Store credential' }).click();
      await toast(page, 'Credential shop admin stored');
      const credential = page.getByRole('table', { name: 'Credentials' }).getByRole('row', { name: /shop admin/ });
      await credential.getByRole('cell', { name: 'never' }).waitFor();
      await credential.getByRole('button', { name: 'Edit credential shop admin' }).click();
      const editCredential = page.getByRole('form', { name: 'Edit credential shop admin' });
      await editCredential.getByLabel('New username').fill('root');
      await editCredential.getByLabel('New password').fill('second-secret');
      await editCredential.getByRole('button', { name: 'Save credential' }).click();
      await toast(page, 'Credential shop admin updated');
      // The new credential is offered to the services.
      await service.getByRole('button', { name: 'Edit service shop front' }).click();
      await page.getByRole('form', { name: 'Edit service shop front' }).getByLabel('shop admin').check();
      await page.getByRole('button', { name: 'Save service' }).click();
      await toast(page, 'Service shop front saved');
      const watched = await apiAs<{ data: { label: string; credentials: number[]; timeout: number }[] }>(
        page,
        'GET',
        '/managed/services',
      );
      assert.equal(watched.data[0]?.credentials.length, 1);
      assert.equal(watched.data[0]?.timeout, 7);

      const access = page.getByRole('table', { name: 'Node access' });
      const box = access.getByRole('row', { name: /managed-box/ });
      await box.getByRole('button', { name: 'Edit SSH access to managed-box' }).click();
      const ssh = page.getByRole('form', { name: 'SSH access to managed-box' });
      await ssh.getByLabel('Staff may log in').uncheck();
      await ssh.getByLabel('User').fill('ops');
      await ssh.getByLabel('Port').fill('2222');
      await ssh.getByRole('button', { name: 'Save SSH settings' }).click();
      await toast(page, 'SSH settings of managed-box saved');
      await box.getByRole('cell', { name: '2222' }).waitFor();
      const settings = await apiAs<{ ssh: { access: boolean; user: string; port: number } }>(
        page,
        'GET',
        `/managed/node-settings/${node.id}`,
      );
      assert.deepEqual(settings.ssh, { ...settings.ssh, access: false, user: 'ops', port: 2222 });
      shots.push(...(await shotBothWidths(page, prefix, 'managed')));

      await contact.getByRole('button', { name: 'Delete contact Ada Ops' }).click();
      await confirmDialog(page, 'Delete contact Ada Ops?', 'Delete');
      await toast(page, 'Contact Ada Ops deleted');
      await page.getByText('No contacts yet.').waitFor();
      await credential.getByRole('button', { name: 'Delete credential shop admin' }).click();
      await confirmDialog(page, 'Delete credential shop admin?', 'Delete');
      await toast(page, 'Credential shop admin deleted');
      await page.getByText('No credentials stored.').waitFor();
      await service.getByRole('button', { name: 'Delete service shop front' }).click();
      await confirmDialog(page, 'Delete service shop front?', 'Delete');
      await toast(page, 'Service shop front deleted');
      await page.getByText('No monitored services.').waitFor();
    });

    test('tags: create one, see what carries it and follow a link there, delete it off every object', async (t) => {
      const { page } = await watchedPage(t, browser, prefix);
      await signIn(page, server.baseUrl);
      const node = await apiAs<{ id: number }>(page, 'POST', '/node/instances', {
        label: 'tagged-box',
        region: 'us-east',
        type: 'g6-nanode-1',
        tags: ['frontend'],
      });
      await page.getByRole('link', { name: 'Tags', exact: true }).click();
      await page.getByLabel('New tag').fill('backend');
      await page.getByRole('button', { name: 'Add tag' }).click();
      await toast(page, 'Tag backend created');
      const tags = page.getByRole('table', { name: 'Tags' });
      await tags.getByRole('link', { name: 'What has tag backend' }).waitFor();
      await page.getByLabel('Tag contains').fill('front');
      await tags.getByRole('link', { name: 'What has tag backend' }).waitFor({ state: 'detached' });
      await page.getByLabel('Tag contains').fill('');
      await tags.getByRole('link', { name: 'What has tag backend' }).waitFor();
      shots.push(...(await shotBothWidths(page, prefix, 'tags')));

      await tags.getByRole('link', { name: 'What has tag frontend' }).click();
      await page.getByRole('heading', { name: 'Tag frontend' }).waitFor();
      const objects = page.getByRole('table', { name: 'Objects tagged frontend' });
      await objects.getByRole('cell', { name: 'node', exact: true }).waitFor();
      shots.push(...(await shotBothWidths(page, prefix, 'tag')));
      await objects.getByRole('link', { name: 'tagged-box' }).click();
      await page.getByRole('heading', { name: 'tagged-box' }).waitFor();
      assert.match(page.url(), new RegExp(`#/nodes/${node.id}$`));

      await page.goto(`${server.baseUrl}/#/tags/frontend`);
      await page.getByRole('button', { name: 'Delete tag' }).click();
      await confirmDialog(page, 'Delete tag frontend?', 'Delete');
      await toast(page, 'Tag frontend deleted');
      await page.getByRole('heading', { name: 'Tags', level: 1 }).waitFor();
      await tags.getByRole('link', { name: 'What has tag backend' }).waitFor();
      assert.equal(await tags.getByRole('link', { name: 'What has tag frontend' }).count(), 0);
      const after = await apiAs<{ tags: string[] }>(page, 'GET', `/node/instances/${node.id}`);
      assert.deepEqual(after.tags, [], 'the tag came off the node');

      await tags.getByRole('button', { name: 'Delete tag backend' }).click();
      await confirmDialog(page, 'Delete tag backend?', 'Delete');
      await toast(page, 'Tag backend deleted');
      await tags.getByRole('link', { name: 'What has tag backend' }).waitFor({ state: 'detached' });
    });

    test('a restricted user with read-only grants sees the pages without any write control', async (t) => {
      const { page } = await watchedPage(t, browser, prefix);
      await signIn(page, server.baseUrl);
      const imageId = await uploadedImage(page, 'shared-base');
      const script = await apiAs<{ id: number }>(page, 'POST', '/node/stackscripts', {
        label: 'team-setup',
        images: ['node/debian12'],
        script: '#!/bin/sh\ntrue\n',
      });
      await apiAs(page, 'POST', '/tags', { label: 'team' });
      await apiAs(page, 'POST', '/account/users', { username: 'viewer', email: 'viewer@example.com', restricted: true });
      await apiAs(page, 'PUT', '/account/users/viewer/grants', {
        global: { account_access: 'read_only', add_images: false, add_stackscripts: false },
        image: [{ id: Number(imageId.split('/')[1]), permissions: 'read_only' }],
        stackscript: [{ id: script.id, permissions: 'read_only' }],
      });
      const set = await fetch(`${server.baseUrl}/admin/users/viewer/password`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_API_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ password: VIEWER_PASSWORD }),
      });
      assert.equal(set.status, 200, await set.text());
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();

      await signInAs(page, server.baseUrl, 'viewer', VIEWER_PASSWORD);
      await page.getByRole('link', { name: 'Images', exact: true }).click();
      const row = page.getByRole('table', { name: 'Your images' }).getByRole('row', { name: /shared-base/ });
      await row.getByRole('link', { name: 'Deploy shared-base to a new node' }).waitFor(LIVE);
      assert.equal(await row.getByRole('button').count(), 0, 'no Edit or Delete on a read-only image');
      assert.equal(await page.getByRole('form', { name: 'Upload an image' }).count(), 0, 'no upload without add_images');

      await page.getByRole('link', { name: 'StackScripts', exact: true }).click();
      await page.getByRole('table', { name: 'StackScripts' }).getByRole('link', { name: 'team-setup' }).click();
      await page.getByRole('heading', { name: 'team-setup', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Deploy to a new node' }).waitFor();
      assert.equal(
        await page.getByRole('button', { name: /^(Edit|Delete)$/ }).count(),
        0,
        'no Edit or Delete on a read-only script',
      );
      await page.getByRole('link', { name: 'All StackScripts' }).click();
      await page.getByRole('heading', { name: 'StackScripts', level: 1 }).waitFor();
      assert.equal(
        await page.getByRole('link', { name: 'Create a StackScript' }).count(),
        0,
        'no create without add_stackscripts',
      );

      await page.getByRole('link', { name: 'Managed', exact: true }).click();
      await page.getByText("Managed services are run by the account's unrestricted users").waitFor();
      assert.equal(await page.getByRole('button', { name: /^(Add|Edit|Delete|Disable)/ }).count(), 0);

      await page.getByRole('link', { name: 'Tags', exact: true }).click();
      await page.getByRole('table', { name: 'Tags' }).getByRole('link', { name: 'What has tag team' }).waitFor();
      assert.equal(
        await page.getByRole('button', { name: /Delete tag|Add tag/ }).count(),
        0,
        'tags are written by unrestricted users',
      );
    });
  });
}
