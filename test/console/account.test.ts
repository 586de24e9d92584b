import assert from 'node:assert/strict';
import fs from 'node:fs';
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
  shotBothWidths,
  signIn,
  toast,
  watchedPage,
} from './browser.ts';

const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPN0K/iavLgIDTQrbgZpLOwD2XuGnYQMzGIUfibihwo/ me@laptop';

/** Signs in as `username` from the console's page at `at`, as a person would, and waits for `heading`. */
async function signInAs(page: Page, baseUrl: string, username: string, password: string, at: string, heading: string) {
  await page.goto(`${baseUrl}/#${at}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: heading, exact: true }).waitFor();
}

/** The access token the console keeps in this browser, to call the API as the page's user. */
async function pageToken(page: Page): Promise<string> {
  const text = await page.evaluate(() => localStorage.getItem('cumulo.tokens'));
  assert.ok(text, 'the console keeps its tokens');
  return (JSON.parse(text) as { access_token: string }).access_token;
}

function apiCall(server: ServerProcess, token: string, method: string, path: string, body?: unknown) {
  return fetch(`${server.baseUrl}/v4${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Dismisses the toasts, so that a screenshot shows the page under them. */
async function clearToasts(page: Page): Promise<void> {
  await page.evaluate("for (const button of document.querySelectorAll('.toast button')) button.click()");
  await page.locator('.toast').first().waitFor({ state: 'detached' });
}

/** The API's answer to a call, as JSON. */
async function answer<T>(reply: Promise<Response>): Promise<T> {
  return (await (await reply).json()) as T;
}

interface Grant {
  id: number;
  label: string;
  permissions: string | null;
}

/** The secret a "shown once" box on the page holds. */
async function shownSecret(page: Page): Promise<string> {
  const text = (await page.locator('.shown-once [data-secret]').textContent())?.trim() ?? '';
  assert.ok(text.length >= 20, `a secret is shown: ${text}`);
  return text;
}

/** Presses Copy and checks the clipboard then holds `secret`. */
async function copies(page: Page, secret: string): Promise<void> {
  await page.locator('.shown-once').getByRole('button', { name: 'Copy' }).click();
  await toast(page, 'Copied');
  assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
}

for (const dialect of PAGE_DIALECTS) {
  describe(`the console's account pages in Chromium [${dialect}]`, needs('chromium-headless-shell'), () => {
    let server: ServerProcess;
    let browser: Browser;
    const shots: string[] = [];
    const cleanups: (() => unknown)[] = [];
    const suite = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
    before(async () => {
      server = await consoleServer(suite, dialect);
      browser = await launch(suite);
    });
    after(async () => {
      for (const fn of cleanups.reverse()) await fn();
      for (const file of shots) assert.ok(fs.statSync(file).size > 10_000, `${file} is a real screenshot`);
    });

    test('a restricted user made with a password and granted read_only on a domain signs in, sees that domain and no write controls', async (t) => {
      const { page, expectFailure } = await watchedPage(t, browser, `${dialect}-account`);
      await signIn(page, server.baseUrl);
      const admin = await pageToken(page);
      for (const domain of ['granted.example', 'hidden.example']) {
        const made = await apiCall(server, admin, 'POST', '/domains', {
          domain,
          type: 'master',
          soa_email: `hostmaster@${domain}`,
        });
        assert.equal(made.status, 200);
      }

      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Users' }).waitFor();
      await page.getByRole('row', { name: /admin/ }).waitFor();
      const add = page.getByRole('form', { name: 'Add a user' });
      await add.getByLabel('Username').fill('jo-restricted');
      await add.getByLabel('Email').fill('jo@example.com');
      await add.getByLabel('Password').fill('short');
      assert.ok(await add.getByLabel(/Restricted/).isChecked(), 'a new user is restricted unless told otherwise');
      await add.getByRole('button', { name: 'Add user' }).click();
      await add.locator('.field-error[data-field="password"]', { hasText: 'at least 8' }).waitFor();
      assert.equal(
        await apiCall(server, admin, 'GET', '/account/users/jo-restricted').then((r) => r.status),
        404,
        'nothing made',
      );
      await add.getByLabel('Password').fill('jo pass phrase 1');
      await add.getByLabel('Username').fill('admin');
      expectFailure('POST', '/v4/account/users', 400);
      await add.getByRole('button', { name: 'Add user' }).click();
      await add.locator('.field-error[data-field="username"]', { hasText: 'taken' }).waitFor();
      await add.getByLabel('Username').fill('jo-restricted');
      await add.getByRole('button', { name: 'Add user' }).click();
      await toast(page, 'User jo-restricted added');
      await page.getByRole('heading', { name: 'jo-restricted' }).waitFor();

      // Grants: read only on one domain, nothing on the other; read back from the API after the save.
      const grants = page.getByRole('form', { name: 'Grants of jo-restricted' });
      const domains = grants.getByRole('group', { name: 'Domains' });
      assert.equal(await domains.getByLabel('granted.example').inputValue(), '', 'no grant to begin with');
      await domains.getByLabel('granted.example').selectOption('read_only');
      await grants.getByRole('button', { name: 'Save grants' }).click();
      await toast(page, 'Grants of jo-restricted saved');
      const held = await answer<{ global: Record<string, unknown>; domain: Grant[] }>(
        apiCall(server, admin, 'GET', '/account/users/jo-restricted/grants'),
      );
      const permission = (label: string) => held.domain.find((d) => d.label === label)?.permissions;
      assert.equal(permission('granted.example'), 'read_only');
      assert.equal(permission('hidden.example'), null);
      assert.equal(held.global.add_domains, false);

      // Edit: a new email; giving full access asks first, and Cancel changes nothing.
      const edit = page.getByRole('form', { name: 'Edit the user' });
      await edit.getByLabel('Email').fill('jo@example.org');
      await edit.getByRole('button', { name: 'Save' }).click();
      await toast(page, 'User jo-restricted saved');
      await page.locator('.facts dd', { hasText: 'jo@example.org' }).waitFor();
      await edit.getByLabel('Restricted').uncheck();
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('dialog', { name: 'Give user jo-restricted full access?' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      const jo = await answer<{ restricted: boolean }>(apiCall(server, admin, 'GET', '/account/users/jo-restricted'));
      assert.equal(jo.restricted, true, 'still restricted');
      await edit.getByLabel('Restricted').check();

      // A new password: a weak one is refused at its field, then the good one is set.
      const password = page.getByRole('form', { name: 'Set a password' });
      await password.getByLabel('New password').fill('         ');
      await password.getByRole('button', { name: 'Set password' }).click();
      await password.locator('.field-error[data-field="password"]').waitFor();
      await password.getByLabel('New password').fill('jo pass phrase 2');
      await password.getByRole('button', { name: 'Set password' }).click();
      await toast(page, 'Password of jo-restricted set');
      assert.equal(await password.getByLabel('New password').inputValue(), '', 'the field is emptied');
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-account`, 'user-detail')));

      // Jo signs in in a browser of its own with the new password.
      const joPage = await watchedPage(t, browser, `${dialect}-account-jo`);
      await signInAs(joPage.page, server.baseUrl, 'jo-restricted', 'jo pass phrase 2', '/domains', 'Domains');
      await joPage.page.getByRole('link', { name: 'granted.example' }).waitFor();
      assert.equal(await joPage.page.getByText('hidden.example').count(), 0, 'the domain without a grant is not listed');

      // Without account access: no users' pages at all, its own tokens only.
      await joPage.page.getByRole('link', { name: 'Account' }).click();
      await joPage.page.getByRole('heading', { name: 'API tokens' }).waitFor();
      const menu = joPage.page.getByRole('navigation', { name: 'Account' });
      assert.equal(await menu.getByRole('link', { name: 'Users' }).count(), 0);
      assert.equal(await menu.getByRole('link', { name: 'OAuth clients' }).count(), 0);
      await joPage.page.goto(`${server.baseUrl}/#/account/users`);
      await joPage.page.getByText("Your user has no access to the account's users").waitFor();
      assert.equal(await joPage.page.getByRole('form').count(), 0, 'no form');
      assert.equal(await joPage.page.getByRole('button', { name: /Add user|Delete/ }).count(), 0);

      // With read-only account access: the OAuth clients, and none of their write controls; still no users.
      await page
        .getByRole('form', { name: 'Grants of jo-restricted' })
        .getByLabel(/Account access/)
        .selectOption('read_only');
      await page.getByRole('button', { name: 'Save grants' }).click();
      await toast(page, 'Grants of jo-restricted saved');
      await joPage.page.reload();
      await joPage.page.getByText("Your user has no access to the account's users").waitFor();
      await menu.getByRole('link', { name: 'OAuth clients' }).click();
      await joPage.page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
      await joPage.page.getByText('No OAuth clients yet.').waitFor();
      assert.equal(await joPage.page.getByRole('form').count(), 0, 'no register form');
      assert.equal(await menu.getByRole('link', { name: 'Users' }).count(), 0);
      await joPage.page.goto('about:blank');

      // The users list, then the user deleted.
      await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Users' }).click();
      await page.getByRole('link', { name: 'jo-restricted' }).waitFor();
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-account`, 'users')));
      await page.getByLabel('Search by username').fill('jo-');
      await page.getByRole('row', { name: /admin/ }).waitFor({ state: 'detached' });
      await page.getByRole('link', { name: 'jo-restricted' }).click();
      await page.getByRole('button', { name: 'Delete user' }).click();
      await confirmDialog(page, 'Delete user jo-restricted?', 'Delete');
      await toast(page, 'User jo-restricted deleted');
      await page.getByRole('heading', { name: 'Users' }).waitFor();
      await page
        .getByText('No users.')
        .or(page.getByText('No user matches.'))
        .or(page.getByRole('link', { name: 'admin' }))
        .waitFor();
      assert.equal(await page.getByRole('link', { name: 'jo-restricted' }).count(), 0);
      assert.equal(await apiCall(server, admin, 'GET', '/account/users/jo-restricted').then((r) => r.status), 404);
    });

    test('tokens: made with chosen scopes and an expiry, shown once and copied, renamed, revoked; SSH keys added, renamed, deleted', async (t) => {
      const { page, context, expectFailure } = await watchedPage(t, browser, `${dialect}-account`);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
      await signIn(page, server.baseUrl);
      await page.goto(`${server.baseUrl}/#/account/tokens`);
      await page.getByRole('heading', { name: 'API tokens' }).waitFor();
      // The one the server made at its first start, without an expiry.
      await page
        .getByRole('row', { name: /bootstrap/ })
        .getByText('never')
        .waitFor();

      const form = page.getByRole('form', { name: 'New token' });
      await form.getByLabel('Label').fill('deploy');
      await form.getByLabel('Chosen areas only').check();
      await form.getByRole('button', { name: 'Create token' }).click();
      await form.locator('.field-error[data-field="scopes"]', { hasText: 'Choose at least one area' }).waitFor();
      await form.getByLabel('Domains').selectOption('read_write');
      await form.getByLabel('Nodes').selectOption('read_only');
      await form.getByLabel('Expires').selectOption({ label: 'In 30 days' });
      await form.getByRole('button', { name: 'Create token' }).click();
      await toast(page, 'Token deploy created');
      const secret = await shownSecret(page);
      await copies(page, secret);
      const row = page.getByRole('row', { name: /deploy/ });
      await row.getByText('Domains: read write, Nodes: read only').waitFor();
      assert.equal(await row.getByText('never').count(), 0, 'it expires');
      assert.equal((await apiCall(server, secret, 'GET', '/domains')).status, 200, 'the token works within its scopes');
      assert.equal((await apiCall(server, secret, 'GET', '/account/users')).status, 403, 'and only within them');
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-account`, 'tokens')));
      await page.getByRole('button', { name: 'I have kept it' }).click();
      assert.equal(await page.locator('.shown-once').count(), 0, 'the token is not shown again');

      await row.getByRole('button', { name: 'Rename token deploy' }).click();
      await page.getByRole('form', { name: 'Rename token deploy' }).getByLabel('New label').fill('deploy-ci');
      await page.getByRole('form', { name: 'Rename token deploy' }).getByRole('button', { name: 'Save' }).click();
      await toast(page, 'Renamed token deploy to deploy-ci');
      const renamed = page.getByRole('row', { name: /deploy-ci/ });
      await renamed.waitFor();
      await renamed.getByRole('button', { name: 'Revoke token deploy-ci' }).click();
      await confirmDialog(page, 'Revoke token deploy-ci?', 'Revoke');
      await toast(page, 'Token deploy-ci revoked');
      await renamed.waitFor({ state: 'detached' });
      assert.equal((await apiCall(server, secret, 'GET', '/domains')).status, 401, 'a revoked token is refused');

      await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'SSH keys' }).click();
      await page.getByRole('heading', { name: 'SSH keys' }).waitFor();
      const keyForm = page.getByRole('form', { name: 'Add an SSH key' });
      await keyForm.getByLabel('Label').fill('laptop');
      await keyForm.getByLabel('Public key').fill('ssh-ed25519 not-a-key');
      expectFailure('POST', '/v4/profile/sshkeys', 400);
      await keyForm.getByRole('button', { name: 'Add key' }).click();
      await keyForm.locator('.field-error[data-field="ssh_key"]').waitFor();
      await keyForm.getByLabel('Public key').fill(ED25519);
      await keyForm.getByRole('button', { name: 'Add key' }).click();
      await toast(page, 'SSH key laptop added');
      const keyRow = page.getByRole('row', { name: /laptop/ });
      await keyRow.getByText('me@laptop').waitFor();
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-account`, 'ssh-keys')));
      await keyRow.getByRole('button', { name: 'Rename SSH key laptop' }).click();
      await page.getByRole('form', { name: 'Rename SSH key laptop' }).getByLabel('New label').fill('work-laptop');
      await page.getByRole('form', { name: 'Rename SSH key laptop' }).getByRole('button', { name: 'Save' }).click();
      await toast(page, 'Renamed SSH key laptop to work-laptop');
      const keys = await answer<{ data: { label: string }[] }>(apiCall(server, await pageToken(page), 'GET', '/profile/sshkeys'));
      assert.deepEqual(
        keys.data.map((k) => k.label),
        ['work-laptop'],
      );
      await page.getByRole('button', { name: 'Delete SSH key work-laptop' }).click();
      await confirmDialog(page, 'Delete SSH key work-laptop?', 'Delete');
      await toast(page, 'SSH key work-laptop deleted');
      await page.getByText('No SSH keys yet.').waitFor();
    });

    test('OAuth clients: registered with the secret shown once, let in as an app and revoked there, secret reset, edited, deleted', async (t) => {
      const { page, context } = await watchedPage(t, browser, `${dialect}-account`);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
      await signIn(page, server.baseUrl);
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'OAuth clients' }).click();
      await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
      const form = page.getByRole('form', { name: 'Register an OAuth client' });
      await form.getByLabel('Label').fill('ci-app');
      await form.getByLabel('Redirect URI').fill('http://127.0.0.1:9/callback');
      await form.getByRole('button', { name: 'Register client' }).click();
      await toast(page, 'OAuth client ci-app registered');
      await page.getByRole('heading', { name: 'ci-app', exact: true }).waitFor();
      const secret = await shownSecret(page);
      await copies(page, secret);
      const clientId = (await page.locator('.facts dd.mono').first().textContent()) ?? '';
      assert.match(clientId, /^[0-9a-f]{20}$/);
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-account`, 'oauth-client')));

      // The admin lets the app in at the sign-in page, and the app takes its token with the secret.
      const authorized = await fetch(`${server.baseUrl}/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: clientId,
          redirect_uri: 'http://127.0.0.1:9/callback',
          response_type: 'code',
          state: 's1',
          username: 'admin',
          password: ADMIN_PASSWORD,
          decision: 'allow',
        }),
      });
      assert.equal(authorized.status, 302);
      const code = new URL(authorized.headers.get('location') ?? '').searchParams.get('code') ?? '';
      const tokenReply = await fetch(`${server.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          client_id: clientId,
          client_secret: secret,
          redirect_uri: 'http://127.0.0.1:9/callback',
        }),
      });
      assert.equal(tokenReply.status, 200, 'the copied secret is the client secret');
      const appToken = ((await tokenReply.json()) as { access_token: string }).access_token;
      assert.equal((await apiCall(server, appToken, 'GET', '/profile')).status, 200);

      await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Authorized apps' }).click();
      const appRow = page.getByRole('row', { name: /ci-app/ });
      await appRow.getByText('All areas').waitFor();
      await assertAccessible(page, 'the authorized apps');
      await appRow.getByRole('button', { name: 'Revoke app ci-app' }).click();
      await confirmDialog(page, 'Revoke app ci-app?', 'Revoke');
      await toast(page, 'Access of ci-app revoked');
      await appRow.waitFor({ state: 'detached' });
      assert.equal((await apiCall(server, appToken, 'GET', '/profile')).status, 401, "the app's token ends");

      await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'OAuth clients' }).click();
      await page.getByRole('link', { name: 'ci-app' }).click();
      await page.getByRole('heading', { name: 'ci-app', exact: true }).waitFor();
      assert.equal(await page.locator('.shown-once').count(), 0, 'the secret is not shown again');
      await page.getByRole('button', { name: 'Reset secret' }).click();
      await confirmDialog(page, 'Reset the secret of ci-app?', 'Reset secret');
      await toast(page, 'Secret of ci-app reset');
      const renewed = await shownSecret(page);
      assert.notEqual(renewed, secret);
      await page.getByRole('button', { name: 'I have kept it' }).click();

      const edit = page.getByRole('form', { name: 'Edit the client' });
      await edit.getByLabel('Label').fill('ci-app-2');
      await edit.getByRole('button', { name: 'Save' }).click();
      await toast(page, 'OAuth client ci-app-2 saved');
      await page.getByRole('heading', { name: 'ci-app-2', exact: true }).waitFor();
      await edit.getByLabel(/Public/).check();
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('dialog', { name: 'Make OAuth client ci-app-2 public?' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      const client = await answer<{ public: boolean; label: string }>(
        apiCall(server, await pageToken(page), 'GET', `/account/oauth-clients/${clientId}`),
      );
      assert.equal(client.public, false, 'still confidential');
      assert.equal(client.label, 'ci-app-2');

      await page.getByRole('link', { name: 'OAuth clients', exact: true }).first().click();
      await page.getByRole('link', { name: 'ci-app-2' }).waitFor();
      await clearToasts(page);
      shots.push(...(await shotBothWidths(page, `${dialect}-account`, 'oauth-clients')));
      await page.getByRole('link', { name: 'ci-app-2' }).click();
      await page.getByRole('button', { name: 'Delete client' }).click();
      await confirmDialog(page, 'Delete OAuth client ci-app-2?', 'Delete');
      await toast(page, 'OAuth client ci-app-2 deleted');
      await page.getByText('No OAuth clients yet.').waitFor();
    });
  });
}
